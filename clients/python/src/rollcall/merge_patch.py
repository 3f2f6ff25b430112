"""RFC 7386 JSON Merge Patch: applying a patch, and the smallest patch between two objects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """Applies a merge patch (RFC 7386 section 2) without changing its arguments.

    An object patch merges member by member, `None` (JSON `null`) removes a member, anything else replaces the
    target.

    Args:
        target: the document the patch applies to.
        patch: the merge patch.

    Returns:
        The patched document; parts the patch does not touch are shared with `target`.
    """
    if not isinstance(patch, Mapping):
        return patch
    result = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result


def merge_patch_diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The smallest merge patch that turns `before` into `after`.

    Members of `before` missing from `after` become `None`, changed members their new value, changed objects their
    own patch.

    Args:
        before: the object before.
        after: the object after; it must hold no `None` member (a merge patch cannot set one).

    Returns:
        The patch; an empty dict when the two are equal.
    """
    patch: dict[str, Any] = {key: None for key in before if key not in after}
    for key, new in after.items():
        if key not in before:
            patch[key] = new
            continue
        old = before[key]
        if _same(old, new):
            continue
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            inner = merge_patch_diff(old, new)
            if inner:
                patch[key] = inner
        else:
            patch[key] = new
    return patch


def _same(left: Any, right: Any) -> bool:
    """Equality of JSON values, where `True` is not `1` (as Python's `==` would have it)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(_same(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and bool(left == right)
