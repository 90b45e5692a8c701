"""Resized avatars for the public profile pages."""
from imaging import load, resize

_resized: dict[tuple[str, int], bytes] = {}


def avatar(user_id: str, size: int) -> bytes:
    """The user's avatar at ``size`` pixels; sizes come from the ?s= query parameter."""
    key = (user_id, size)
    if key not in _resized:
        _resized[key] = resize(load(user_id), size)
    return _resized[key]
