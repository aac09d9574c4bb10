#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora, fuzz/corpus/<target>/, from
tests/corpus (real log excerpts, provenance in tests/corpus/INDEX.md) and
tests/fixtures/incident (the incident), cut to a few KB each, plus tiny
archives (zip stored and deflate, tar, tar.gz, gz, a zip holding a tgz)
made from them. Deterministic: the same files give the same seeds.

    python3 fuzz/seeds.py          write the seeds (existing files are kept;
                                   a seed is named by its content's hash)

scripts/fuzz.sh campaign later merges what the fuzzer found into the same
folders (`-merge=1`, so only inputs that add coverage are kept).
"""
import gzip
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
CORPUS = os.path.join(ROOT, "tests", "corpus")
INCIDENT = os.path.join(ROOT, "tests", "fixtures", "incident", "cozyreport")
OUT = os.path.join(ROOT, "fuzz", "corpus")
# Seeds are cut to this many bytes, at a line break.
CUT = 12 * 1024
# Fixed archive times, so archives are the same on every run.
MTIME = 1779812460  # 2026-05-26T16:21:00Z
DATE = (2026, 5, 26, 16, 21, 0)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cut(data, limit=CUT):
    if len(data) <= limit:
        return data
    nl = data.rfind(b"\n", 0, limit)
    return data[: nl + 1] if nl > 0 else data[:limit]


def corpus_files(sub=None):
    base = os.path.join(CORPUS, sub) if sub else CORPUS
    out = []
    for dirpath, _, names in os.walk(base):
        for n in names:
            if n.endswith(".expect") or n == "INDEX.md":
                continue
            out.append(os.path.join(dirpath, n))
    return sorted(out)


def incident(rel):
    return read(os.path.join(INCIDENT, rel))


def incident_window():
    """The kamaji log's records from 16:29:00 to 16:50:30: the stalled
    worker, the expired contexts and the etcd client warnings."""
    keep, out = False, []
    for line in incident("kamaji/kamaji-controller.log").splitlines(keepends=True):
        m = re.match(rb"(\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d))", line) or re.match(rb'\{"level":"\w+","ts":"\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)', line)
        if m:
            t = m.group(m.lastindex).decode()
            keep = "16:29:00" <= t <= "16:50:30"
        if keep:
            out.append(line)
    return b"".join(out)


def files_input(files):
    """Several named files in one input (reconscope_fuzz::files)."""
    out = [b"#files\n"]
    for name, data in files:
        out.append(b"#file " + name.encode() + b"\n" + data)
        if not data.endswith(b"\n"):
            out.append(b"\n")
    return b"".join(out)


def zip_of(files, compression):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in files:
            z.writestr(zipfile.ZipInfo(name, DATE), data, compress_type=compression)
    return buf.getvalue()


def tar_of(files, mode="w"):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.USTAR_FORMAT) as t:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), MTIME
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gz(data):
    return gzip.compress(data, mtime=MTIME)


def write(target, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, hashlib.sha1(data).hexdigest())
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)


def main():
    logs = [cut(read(p)) for p in corpus_files() if not p.endswith(".yaml")]
    etcd = [cut(incident(f"snapshots/e2e-tenant/namespaces/tenant-root/v1/pod/etcd-{i}/etcd/current.log"), 6 * 1024) for i in range(3)]
    dump = incident("kamaji/pprof/kamaji-goroutines-20260526T164500Z.txt")
    window = incident_window()
    yamls = [read(p) for p in corpus_files("k8s-objects") if p.endswith(".yaml")]
    tcps = cut(incident("kamaji/tenantcontrolplanes.yaml"), 16 * 1024)

    # parse: every log excerpt and the incident's logs.
    for data in logs + etcd + [cut(window), cut(dump), incident("kamaji/tenantcontrolplanes.txt")]:
        write("parse", data)

    # goroutines: every dump, the incident's, and logs with panics in them.
    for p in corpus_files("goroutines"):
        write("goroutines", cut(read(p), 32 * 1024))
    write("goroutines", dump)
    for p in corpus_files():
        data = read(p)
        if b"goroutine " in data and b"[running]" in data or b"panic:" in data:
            write("goroutines", cut(data))

    # objects: the YAML dumps, one as JSON by hand, a List of two.
    for data in yamls + [tcps]:
        write("objects", data)
    write("objects", b'{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"kamaji.clastix.io/v1alpha1","kind":"TenantControlPlane",'
          b'"metadata":{"name":"kubernetes-gamma","namespace":"tenant-gamma","creationTimestamp":"2026-05-26T16:20:11Z",'
          b'"deletionTimestamp":"2026-05-26T16:36:59Z","finalizers":["finalizer.kamaji.clastix.io"],"generation":3,'
          b'"managedFields":[{"manager":"kubectl","time":"2026-05-26T16:20:11Z"},{"manager":"kamaji","time":"2026-05-26T16:29:30Z"}]},'
          b'"status":{"observedGeneration":2}},{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}]}\n')

    # ingest: tiny archives of a few excerpts, of every kind, and nested.
    small = [(f"logs/{os.path.basename(p)}", cut(read(p), 3 * 1024)) for p in corpus_files("kamaji")[:3]]
    tgz = tar_of(small, "w:gz")
    for data in [
        zip_of(small, zipfile.ZIP_STORED),
        zip_of(small, zipfile.ZIP_DEFLATED),
        tar_of(small),
        tgz,
        gz(small[0][1]),
        small[1][1],
        zip_of([("cozyreport/cozyreport.tgz", tgz), ("cozyreport/README.txt", b"not a log\n")], zipfile.ZIP_DEFLATED),
        tar_of([("a/b.log.gz", gz(small[2][1])), ("a/bin", b"\x7fELF\x00\x00\x01")]),
    ]:
        write("ingest", data)

    # pipeline: each log alone, and several files together: the incident
    # (its stall window, etcd, the goroutine dump, the objects), a restart
    # (a log beside its previous one), an archive.
    for data in logs:
        write("pipeline", data)
    write("pipeline", files_input(
        [("cozyreport/kamaji/kamaji-controller.log", window)]
        + [(f"cozyreport/snapshots/etcd-{i}/etcd/current.log", e) for i, e in enumerate(etcd)]
        + [("cozyreport/kamaji/pprof/kamaji-goroutines-20260526T164500Z.txt", dump),
           ("cozyreport/kamaji/tenantcontrolplanes.yaml", tcps)]))
    lease = cut(read(os.path.join(CORPUS, "controller-runtime", "json_leader_renew_failed_shutdown_cnpg_v0.22.log")))
    kamaji = cut(read(os.path.join(CORPUS, "kamaji", "issue950_startup_and_error.log")))
    write("pipeline", files_input([("pods/manager-previous.log", lease), ("pods/manager.log", kamaji)]))
    write("pipeline", files_input([("artifact.zip", zip_of(small, zipfile.ZIP_DEFLATED)), ("objects.yaml", yamls[0])]))


if __name__ == "__main__":
    main()
