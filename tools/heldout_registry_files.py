#!/usr/bin/env python3
"""Gathers real OpenStreetMap and vector tile files that no pbaccel change was tuned on, from the
package registries this project's machines reach, into a directory laid out as
`bench/realdata --data` expects (osm/, mvt/; --pprof links a profiles directory in as pprof/, such
as tools/heldout_pprof.py's):

    python3 tools/heldout_registry_files.py --out=/tmp/registry --pprof=/tmp/heldout/pprof
    bazel-bin/bench/realdata --data=/tmp/registry --pprof --reps=3 --csv

What it takes, at pinned versions (the files are other projects' test data):
  * osm/delaware-latest.osm.pbf: Geofabrik's extract of Delaware (7.8 MB, 100 data blocks), from
    the Go module github.com/paulmach/osm v0.8.0 (testdata/). OpenStreetMap data, ODbL 1.0.
  * mvt/registry/: four Mapbox vector tiles: two gzip-compressed ones from the Go module
    github.com/paulmach/orb v0.14.0 (encoding/mvt/testdata/), and 12-1143-1497 and 14-8801-5371
    from the npm package @mapbox/vector-tile 1.3.1 (test/fixtures/). OpenStreetMap data, ODbL 1.0.
These differ from ../shared/realdata's in shape: the Delaware blocks carry full metadata
(DenseInfo), and these tiles' layers hold more values per feature (many of them 64-bit integers,
negative ones ten bytes long) and less packed payload (docs/speed.md, "Held-out files from the
registries").

Needs `go` and `npm` on PATH (or --go, --npm) and the registries; Go's module cache goes to the
project's cache (tools/cache_dir.py: ~/.cache/pbaccel/gomodcache). The files stay outside the
checkout: committed, they would become data the next change is tuned on. Standard library only.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_dir import cache_dir  # noqa: E402  (tools/cache_dir.py: the scripts' shared cache)

OSM_MODULE = "github.com/paulmach/osm@v0.8.0"
OSM_FILE = "testdata/delaware-latest.osm.pbf"
TILE_MODULE = "github.com/paulmach/orb@v0.14.0"
TILE_GLOB = "encoding/mvt/testdata/*.mvt"
NPM_PACKAGE = "@mapbox/vector-tile@1.3.1"
NPM_TILES = ["package/test/fixtures/12-1143-1497.vector.pbf",
             "package/test/fixtures/14-8801-5371.vector.pbf"]


def run(command, **kwargs):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)
    if result.returncode != 0:
        sys.exit("heldout_registry_files: %s failed:\n%s" % (" ".join(command),
                                                             result.stderr[-2000:]))
    return result.stdout


def go_module_dir(go, module):
    """The module's directory in the Go module cache, downloaded if need be."""
    env = dict(os.environ, GOMODCACHE=cache_dir("gomodcache"), GOFLAGS="-mod=mod",
               GOTOOLCHAIN="local")
    with tempfile.TemporaryDirectory() as work:  # Outside any module: `go mod download` as a tool.
        info = json.loads(run([go, "mod", "download", "-json", module], cwd=work, env=env))
    return info["Dir"]


def copy(source, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(source, target)
    return target


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="directory to write (created)")
    parser.add_argument("--pprof", help="a directory of profiles to link in as pprof/")
    parser.add_argument("--go", default="go")
    parser.add_argument("--npm", default="npm")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    written = []

    osm_dir = go_module_dir(args.go, OSM_MODULE)
    written.append(copy(os.path.join(osm_dir, OSM_FILE),
                        os.path.join(out, "osm", os.path.basename(OSM_FILE))))
    tile_dir = go_module_dir(args.go, TILE_MODULE)
    for tile in sorted(glob.glob(os.path.join(tile_dir, TILE_GLOB))):
        written.append(copy(tile, os.path.join(out, "mvt", "registry", os.path.basename(tile))))
    with tempfile.TemporaryDirectory() as work:
        name = run([args.npm, "pack", NPM_PACKAGE, "--pack-destination", work],
                   cwd=work).strip().splitlines()[-1]
        with tarfile.open(os.path.join(work, name)) as tgz:
            for member in NPM_TILES:
                tile = os.path.basename(member).replace(".vector.pbf", ".mvt")
                target = os.path.join(out, "mvt", "registry", tile)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with tgz.extractfile(member) as source, open(target, "wb") as sink:
                    shutil.copyfileobj(source, sink)
                written.append(target)
    if args.pprof:
        link = os.path.join(out, "pprof")
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(args.pprof), link)
    for path in written:
        print("%10d  %s" % (os.path.getsize(path), os.path.relpath(path, out)))


if __name__ == "__main__":
    main()
