"""Image references as the audit reads them: repository, tag and digest."""

from __future__ import annotations

__all__ = ["image_repository", "image_tag"]


def image_tag(image: str) -> tuple[str, str, bool]:
    """(repository, tag, pinned by digest) of an image reference."""
    if "@" in image:
        repo, _, digest = image.partition("@")
        return (repo.rsplit(":", 1)[0] if ":" in repo.rsplit("/", 1)[-1] else repo, "", bool(digest))
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        repo, _, tag = image.rpartition(":")
        return (repo, tag, False)
    return (image, "", False)


def image_repository(image: str) -> str:
    """The repository of an image reference, without tag or digest ('nvcr.io/nvidia/driver')."""
    return image_tag(image.strip())[0]
