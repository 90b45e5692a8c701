"""Writes nightly reports into a shared, world-writable spool directory."""
import os

SPOOL = "/var/spool/reports"


def write_report(name: str, body: str) -> str:
    path = os.path.join(SPOOL, os.path.basename(name))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(path, flags, 0o640)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(body)
    return path
