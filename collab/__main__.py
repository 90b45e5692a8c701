from __future__ import annotations

from collab.cli import main

if __name__ == "__main__":
    main()
