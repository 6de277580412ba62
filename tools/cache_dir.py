"""The project's cache outside the checkout, for the tools written in Python: the place the shell
scripts use too (third_party/protobuf27/prefix.sh, .ci/run), `$PBACCEL_CACHE`, else
`${XDG_CACHE_HOME:-~/.cache}/pbaccel`. Standard library only.
"""
import os


def cache_dir(*parts):
    """The cache directory, joined with `parts` (not created)."""
    base = os.environ.get("PBACCEL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pbaccel")
    return os.path.join(base, *parts)
