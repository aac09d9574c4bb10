#!/usr/bin/env python3
"""Writes www/example/cozyreport.zip, the app's built-in example artifact.

It is the incident fixture tests/fixtures/incident/cozyreport/ packed the way
a CI run hands it out: a zip (as GitHub Actions artifacts are) holding
cozyreport.tgz, a tar.gz of the cozyreport/ tree. The output is
deterministic (fixed times, owners and order), so re-running this script on
an unchanged fixture changes no byte, and the zip can be committed.

    python3 scripts/make-example.py [--check]

--check exits 1 when the committed zip differs from what would be written.
"""

import gzip
import io
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "incident" / "cozyreport"
OUT = ROOT / "www" / "example" / "cozyreport.zip"
# 2026-05-26T17:10:00Z, just after the incident's last log line.
MTIME = 1779815400
ZIP_TIME = (2026, 5, 26, 17, 10, 0)


def tar_gz() -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        paths = sorted(FIXTURE.rglob("*"))
        for path in [FIXTURE, *paths]:
            name = "cozyreport/" + path.relative_to(FIXTURE).as_posix() if path != FIXTURE else "cozyreport"
            info = tarfile.TarInfo(name)
            info.mtime = MTIME
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if path.is_dir():
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                data = path.read_bytes()
                info.size = len(data)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def zipped(inner: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        info = zipfile.ZipInfo("cozyreport.tgz", date_time=ZIP_TIME)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        info.create_system = 3
        z.writestr(info, inner, compresslevel=9)
    return out.getvalue()


def main() -> int:
    data = zipped(tar_gz())
    if sys.argv[1:] == ["--check"]:
        if not OUT.exists() or OUT.read_bytes() != data:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python3 scripts/make-example.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(data)
    print(f"wrote {OUT.relative_to(ROOT)} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
