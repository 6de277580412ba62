#!/bin/sh
echo "pbaccel: 'bazel coverage' is not supported offline (no coverage output generator)" >&2
exit 1
