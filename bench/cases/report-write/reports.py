"""Writes nightly reports into a shared, world-writable spool directory."""
import os

SPOOL = "/var/spool/reports"


def write_report(name: str, body: str) -> str:
    path = os.path.join(SPOOL, os.path.basename(name))
    if os.path.islink(path):
        raise PermissionError(f"refusing to follow a symlink: {path}")
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
    os.chmod(path, 0o640)
    return path
