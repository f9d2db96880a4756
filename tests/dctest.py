# SPDX-License-Identifier: MIT
"""Helpers for DataCrumbs' tests: where the build is, skipping, and an
independent reader of .pfw/.pfw.gz traces that checks the format contract
(docs/trace-format.md) as it reads."""
import atexit
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib

SRC = os.environ.get("DC_SRC", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("DC_BUILD", os.path.join(SRC, "build"))
GEN = os.path.join(BUILD, "generator", "datacrumbs-gen")
RUNTIME = os.path.join(BUILD, "runtime", "datacrumbs-runtime")
REPORT = os.path.join(BUILD, "report", "datacrumbs-report")
WORKLOAD = os.path.join(BUILD, "tests", "iocalls")
SKIP = 77  # meson's exit status for a skipped test

failures = 0


def _timed_out(signum, frame):
    """meson's timeout sends SIGTERM: say where the test was waiting."""
    import traceback
    print("TIMEOUT: killed by meson while at:", file=sys.stderr)
    traceback.print_stack(frame, file=sys.stderr)
    sys.exit(1)


@atexit.register
def _kill_children():
    """A test that fails or times out may leave a server running, which
    would hold meson's pipe open and hide the failure behind a timeout."""
    me = os.getpid()
    for d in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid == me:
                os.kill(int(d), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass


signal.signal(signal.SIGTERM, _timed_out)


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what, file=sys.stderr)
    return cond


def done():
    print("%s: %s" % (os.path.basename(sys.argv[0]), "FAILED" if failures else "ok"))
    sys.exit(1 if failures else 0)


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def slack(seconds):
    """@seconds scaled for an emulated machine (DC_TIME_SCALE, which
    scripts/kernel-test sets for its TCG guests): a bound on how long
    something may take is about responsiveness, not speed."""
    return seconds * float(os.environ.get("DC_TIME_SCALE", "1"))


def need_bpf():
    """End-to-end tests need root, kernel BTF and bpf(); say why not."""
    if os.geteuid() != 0:
        skip("needs root (BPF and uprobes); run the tests as root")
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        skip("kernel has no BTF (/sys/kernel/btf/vmlinux)")


def need_tool(name):
    if not shutil.which(name):
        skip("needs %s (scripts/setup installs it)" % name)


class User:
    """A real unprivileged account: its ids, home, and the prefix that runs
    a command as it (setpriv, with its own groups only)."""

    def __init__(self, name):
        import pwd
        pw = pwd.getpwnam(name)
        self.name, self.uid, self.gid, self.home = name, pw.pw_uid, pw.pw_gid, pw.pw_dir
        self.prefix = ["setpriv", "--reuid=%d" % self.uid, "--regid=%d" % self.gid,
                       "--init-groups", "--reset-env"]

    def run(self, cmd, **kw):
        return run(self.prefix + list(cmd), **kw)

    def start(self, cmd, **kw):
        """@cmd started as this user, returned once it runs as the user
        (setpriv switches after it starts: its pid is root's a moment)."""
        p = subprocess.Popen(self.prefix + list(cmd), **kw)
        for _ in range(400):
            try:
                with open("/proc/%d/status" % p.pid) as f:
                    uids = next(l for l in f if l.startswith("Uid:")).split()[1:]
                if all(int(u) == self.uid for u in uids):
                    break
            except (OSError, StopIteration):
                break
            time.sleep(0.025)
        return p


def hostile_user(name):
    """The local user of a hostile test (dc-alice, dc-bob), made if
    missing: a real account with a home of its own, no privileges."""
    import pwd
    need_tool("setpriv")
    need_tool("useradd")
    try:
        pwd.getpwnam(name)
    except KeyError:
        r = run(["useradd", "--create-home", "--user-group", "--shell", "/bin/sh", name])
        if r.returncode != 0 and "already exists" not in r.stderr:
            skip("cannot create the test user %s: %s" % (name, r.stderr.strip()))
    u = User(name)
    os.chmod(u.home, 0o755)
    return u


def new_cgroup(name):
    """A new cgroup v2 directory @name (the caller removes it), or a skip
    saying why there can be none."""
    root = next((m for m in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
                 if os.path.exists(os.path.join(m, "cgroup.procs"))), None)
    if not root:
        skip("no cgroup v2 hierarchy mounted (jobs are followed by their cgroups)")
    path = os.path.join(root, name)
    try:
        os.mkdir(path)
    except OSError as e:
        skip("cannot create a cgroup in %s: %s" % (root, e))
    return path


def run(cmd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def wait_ready(ready, proc, limit=300):
    """Wait until the runtime @proc has made its --ready-file @ready, or has
    exited. Loading takes seconds natively and a minute or more in a TCG
    guest (scripts/kernel-test): the limit only stops a hang, and meson's
    timeout comes first."""
    end = time.monotonic() + limit
    while not os.path.exists(ready) and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.05)
    return os.path.exists(ready)


def start_server(obj, sock, ready, trace, extra=(), stderr=subprocess.PIPE):
    """A datacrumbs-runtime --server on @sock, once it has made @ready (its
    stderr is a pipe unless given: read it with communicate())."""
    srv = subprocess.Popen([RUNTIME, "--server", "--socket", sock, "--ready-file", ready,
                            "-o", trace] + list(extra) + [obj], stderr=stderr, text=True)
    check(wait_ready(ready, srv), "the server is ready")
    return srv


def _darshan(env, subdir, what, needs, cmd):
    """A Darshan install prefix: $@env, else BUILD/@subdir, built there once
    by @cmd (PREFIX stands for it) when @needs exists; None otherwise."""
    pre = os.environ.get(env)
    if pre:
        return pre
    pre = os.path.join(BUILD, subdir)
    if not os.path.exists(os.path.join(pre, "lib", "libdarshan.so")):
        if not os.path.exists(needs):
            return None
        print("building %s into %s" % (what, pre), file=sys.stderr)
        r = subprocess.run([pre if c == "PREFIX" else c for c in cmd],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            sys.exit("building %s failed:\n%s" % (what, r.stdout[-3000:]))
    return pre


def hdf5_114_prefix():
    """(HDF5 1.14.5 with debug info, None) or (None, why not):
    $HDF5_114_PREFIX, else BUILD/hdf5-1.14, built there once by
    scripts/build-hdf5 (Debian trixie's source, or upstream's)."""
    pre = os.environ.get("HDF5_114_PREFIX") or os.path.join(BUILD, "hdf5-1.14")
    if not os.path.exists(os.path.join(pre, "lib", "libhdf5.so")):
        print("building HDF5 1.14 into %s" % pre, file=sys.stderr)
        r = subprocess.run([os.path.join(SRC, "scripts", "build-hdf5"), pre],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            return None, "HDF5 1.14 could not be built: " + r.stdout[-1500:]
    return pre, None


def darshan_prefix():
    """Darshan 3.4.7: $DARSHAN_PREFIX, else BUILD/darshan-peer, built by
    ../shared/peers/build-darshan."""
    script = os.path.join(SRC, "..", "shared", "peers", "build-darshan")
    return _darshan("DARSHAN_PREFIX", "darshan-peer", "Darshan 3.4.7", script,
                    [script, "PREFIX"])


def darshan_hdf5_prefix():
    """Darshan 3.4.7 with its HDF5 module: $DARSHAN_HDF5_PREFIX, else
    BUILD/darshan-hdf5-peer, built by scripts/build-darshan-hdf5."""
    tarball = os.path.join(SRC, "..", "shared", "peers", "darshan-3.4.7.tar.gz")
    return _darshan("DARSHAN_HDF5_PREFIX", "darshan-hdf5-peer", "Darshan 3.4.7 with HDF5",
                    tarball, [os.path.join(SRC, "scripts", "build-darshan-hdf5"), "PREFIX", tarball])


def darshan_hdf5_114_prefix(hdf5):
    """Darshan 3.4.7 with its HDF5 module against the HDF5 1.14 in @hdf5:
    $DARSHAN_HDF5_114_PREFIX, else BUILD/darshan-hdf5-114-peer, built by
    scripts/build-darshan-hdf5 --hdf5."""
    tarball = os.path.join(SRC, "..", "shared", "peers", "darshan-3.4.7.tar.gz")
    return _darshan("DARSHAN_HDF5_114_PREFIX", "darshan-hdf5-114-peer",
                    "Darshan 3.4.7 with HDF5 1.14", tarball,
                    [os.path.join(SRC, "scripts", "build-darshan-hdf5"), "--hdf5", hdf5,
                     "PREFIX", tarball])


def darshan_phdf5_prefix(flavour="openmpi"):
    """Darshan 3.4.7 with MPI and its HDF5 module against Debian's
    parallel HDF5 for @flavour (openmpi or mpich): $DARSHAN_PHDF5_PREFIX
    (or $DARSHAN_PHDF5_MPICH_PREFIX), else BUILD/darshan-phdf5-peer (or
    darshan-phdf5-mpich-peer), built by scripts/build-darshan-hdf5."""
    tarball = os.path.join(SRC, "..", "shared", "peers", "darshan-3.4.7.tar.gz")
    tail = "" if flavour == "openmpi" else "_" + flavour.upper()
    return _darshan("DARSHAN_PHDF5%s_PREFIX" % tail,
                    "darshan-phdf5%s-peer" % tail.lower().replace("_", "-"),
                    "Darshan 3.4.7 with parallel HDF5 for %s" % flavour, tarball,
                    [os.path.join(SRC, "scripts", "build-darshan-hdf5"), "--flavour", flavour,
                     "PREFIX", tarball])


def mpi_flavour(workload, mpich, ranks, needs):
    """(path, MPI-IO spec in probes.d, launcher) of tests/workloads'
    @workload built for Debian's OpenMPI flavour, or the MPICH one when
    @mpich; skips the test where that flavour was not found when
    building, naming what it needs (@needs: OpenMPI's, MPICH's)."""
    if mpich:
        work = os.path.join(BUILD, "tests", workload + "_mpich")
        spec, launch = "mpiio-mpich.yaml", ["mpiexec.mpich", "-n", str(ranks)]
    else:
        work = os.path.join(BUILD, "tests", workload)
        spec = "mpiio.yaml"
        launch = ["mpirun", "-np", str(ranks), "--allow-run-as-root", "--oversubscribe"]
    if not os.path.exists(work) or not shutil.which(launch[0]):
        skip("%s was not found when building; scripts/setup installs it" % needs[bool(mpich)])
    return work, spec, launch


def phdf5_flavour(mpich, ranks=4):
    """mpi_flavour() of the parallel HDF5 workload (phdf5_calls.c)."""
    return mpi_flavour("phdf5_calls", mpich, ranks,
                       ("parallel HDF5 for OpenMPI (libhdf5-openmpi-dev, openmpi-bin)",
                        "parallel HDF5 for MPICH (libhdf5-mpich-dev, mpich)"))


PHDF5_OPENMPI = "/usr/lib/x86_64-linux-gnu/hdf5/openmpi"


def ior_hdf5_prefix():
    """(IOR with its HDF5 backend against Debian's parallel HDF5 for
    OpenMPI, None) or (None, why not): $IOR_HDF5_PREFIX as it is, else
    BUILD/ior-hdf5-peer, built once by ../shared/peers/build-ior."""
    given = os.environ.get("IOR_HDF5_PREFIX")
    pre = given or os.path.join(BUILD, "ior-hdf5-peer")
    ior = os.path.join(pre, "bin", "ior")
    if not os.access(ior, os.X_OK):
        if given:
            return None, "no %s (IOR_HDF5_PREFIX)" % ior
        script = os.path.join(SRC, "..", "shared", "peers", "build-ior")
        if not os.access(script, os.X_OK):
            return None, "no IOR: set IOR_HDF5_PREFIX or keep %s beside the checkout" % script
        if not os.path.exists(os.path.join(PHDF5_OPENMPI, "libhdf5.so")):
            return None, "no parallel HDF5 for OpenMPI (libhdf5-openmpi-dev; scripts/setup)"
        # build-ior splits this on blanks (no quoting). The library there
        # is named libhdf5_openmpi.so.103 inside, so IOR loads the OpenMPI
        # flavour whatever libhdf5 the alternatives system points at.
        conf = ("--with-hdf5 CC=mpicc CPPFLAGS=-I/usr/include/hdf5/openmpi LDFLAGS=-L"
                + PHDF5_OPENMPI)
        print("building IOR with HDF5 into %s" % pre, file=sys.stderr)
        r = subprocess.run([script, pre], env=dict(os.environ, IOR_CONFIGURE=conf),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            return None, "IOR with HDF5 could not be built: " + r.stdout[-1500:]
    r = run([ior, "-h"])
    if "Module HDF5" not in r.stdout + r.stderr:
        return None, "%s has no HDF5 backend" % ior
    return pre, None


def darshan_parse(pre, cmd, log):
    """darshan-parser's output for @cmd run (not under MPI) with the
    Darshan built at @pre, its log written to @log."""
    env = dict(os.environ, LD_PRELOAD=os.path.join(pre, "lib", "libdarshan.so"),
               DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGFILE=log)
    r = run(cmd, env=env)
    check(r.returncode == 0 and os.path.exists(log), "workload under Darshan: " + r.stderr)
    r = run([os.path.join(pre, "bin", "darshan-parser"), log])
    check(r.returncode == 0, "darshan-parser: " + r.stderr)
    return r.stdout


def darshan_lines(text):
    """(module, rank, counter, value, record name) of each counter line of
    darshan-parser's output or of datacrumbs-report --darshan's (module,
    rank, name, counter, value); time counters (_F_) left out."""
    for line in text.splitlines():
        f = line.split("\t")
        if line.startswith("#") or len(f) < 5:
            continue
        counter, value, name = (f[3], f[4], f[5]) if len(f) > 5 else (f[3], f[4], f[2])
        if "_F_" not in counter:
            yield f[0], f[1], counter, int(value), name


def darshan_reduced(text, d, base, modules, skip):
    """{(module, counter, record): value} of the reduced records (rank -1)
    of the file d/base and its objects (d/base:/...) in darshan-parser's
    or datacrumbs-report --darshan's output, named from base on; the
    counters @skip(counter) says are left out."""
    path = os.path.join(d, base)
    return {(module, counter, name[len(d) + 1:]): value
            for module, rank, counter, value, name in darshan_lines(text)
            if module in modules and rank == "-1"
            and (name == path or name.startswith(path + ":")) and not skip(counter)}


def darshan_mpi_parse(pre, launch, cmd, logdir, complete, mpich=False):
    """darshan-parser's output of @cmd, started by @launch (mpirun ...,
    or MPICH's mpiexec when @mpich), under the Darshan built at @pre.
    Darshan writes its own log with MPI-IO, and under OMPIO its ROMIO
    hints can leave it partly unreadable (so DARSHAN_LOGHINTS is empty):
    up to 3 runs, until @complete(output)."""
    out = ""
    for attempt in range(3):
        log = os.path.join(logdir, "run%d.darshan" % attempt)
        env = {"LD_PRELOAD": os.path.join(pre, "lib", "libdarshan.so"),
               "DARSHAN_LOGFILE": log, "DARSHAN_LOGHINTS": ""}
        # OpenMPI's mpirun passes only what -x names; MPICH's mpiexec
        # passes the whole environment.
        if mpich:
            r = run(launch + cmd, env=dict(os.environ, **env))
        else:
            r = run(launch + [a for k, v in env.items() for a in ("-x", "%s=%s" % (k, v))] + cmd)
        check(r.returncode == 0 and os.path.exists(log), "under Darshan: " + r.stderr[-800:])
        r = run([os.path.join(pre, "bin", "darshan-parser"), log])
        out = r.stdout
        if r.returncode == 0 and complete(out):
            break
    return out


_ATTACHED = r"""
import json, os, subprocess, sys
rt = os.getppid()
ids = set()
for fd in os.listdir("/proc/%d/fdinfo" % rt):
    try:
        info = open("/proc/%d/fdinfo/%s" % (rt, fd)).read()
    except OSError:
        continue
    if "link_type:" in info:
        ids |= {int(l.split()[1]) for l in info.splitlines() if l.startswith("prog_id:")}
perf = json.loads(subprocess.run(["bpftool", "-j", "perf", "show"], capture_output=True,
                                 text=True).stdout or "[]")
ids |= {p["prog_id"] for p in perf if p.get("pid") == rt}
progs = json.loads(subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                                  text=True).stdout or "[]")
json.dump(sorted(p.get("name", "") for p in progs if p["id"] in ids), open(sys.argv[1], "w"))
"""


def attached_programs(tmp, obj, name, extra=()):
    """The names of the programs a runtime with @obj attaches, as the
    kernel has them: its links (/proc/PID/fdinfo) and its perf-event
    attachments (bpftool perf show: uprobes and tracepoints before Linux
    5.15 are no links), asked from the traced command; None after a
    failure (checked)."""
    if not check(shutil.which("bpftool"), "bpftool is installed (scripts/setup)"):
        return None
    out = os.path.join(tmp, name + "-attached.json")
    r = run([RUNTIME, "-q", "-o", os.path.join(tmp, name + "-attached.pfw.gz")] + list(extra)
            + [obj, "--", sys.executable, "-c", _ATTACHED, out])
    if not check(r.returncode == 0 and os.path.exists(out),
                 "%s: the attached programs, listed under the runtime: %s" % (name, r.stderr[-800:])):
        return None
    return json.load(open(out))


def loader_map(exe, env):
    """{soname: path} as the dynamic loader resolves them for @exe run
    with @env (LD_TRACE_LOADED_OBJECTS, as ldd does)."""
    out = subprocess.run([exe], env=dict(env, LD_TRACE_LOADED_OBJECTS="1"),
                         capture_output=True, text=True).stdout
    libs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>":
            libs[parts[0]] = os.path.realpath(parts[2])
    return libs


def hdf5_soname(exe, env):
    """(the loader's map of @exe, the soname of the libhdf5 in it); skips
    the test when @exe maps none."""
    libs = loader_map(exe, env)
    soname = next((k for k in libs if k.startswith("libhdf5")), None)
    if not soname:
        skip("%s maps no libhdf5: %s" % (exe, libs))
    return libs, soname


def check_hdf5_calls(t, h5, truth, what):
    """The HDF5 calls on file @h5 in trace @t are those the workload
    (tests/workloads/hdf5_calls) counted in @truth, each H5Dwrite with its
    bytes."""
    for fn in ("H5Dwrite", "H5Dread", "H5Fcreate", "H5Dcreate2"):
        ev = [e for e in t.select(cat="HDF5", name=fn) if t.file(e) == h5]
        check(len(ev) == truth[fn], "%s: %s %d calls traced, the workload made %d"
              % (what, fn, len(ev), truth[fn]))
    sizes = {e["args"].get("size") for e in t.select(cat="HDF5", name="H5Dwrite")}
    check(sizes == {truth["bytes"]}, "%s: each H5Dwrite moved %d bytes: %s"
          % (what, truth["bytes"], sizes))


def generate(tmp, specs, name="probes.bpf.o", extra=()):
    obj = os.path.join(tmp, name)
    r = run([GEN, "-o", obj] + list(extra) + [os.path.join(SRC, s) for s in specs])
    if r.returncode:
        sys.exit("datacrumbs-gen failed:\n" + r.stderr)
    return obj


def elf_section(path, name):
    """(file offset, size) of section @name of a 64-bit little-endian ELF
    file, read with no ELF tool: binutils does not know BPF objects."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    sec = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = sec[shstrndx][4]
    for sh_name, _, _, _, off, size in sec:
        if data[strtab + sh_name:].split(b"\0", 1)[0].decode() == name:
            return off, size
    return None


# include/datacrumbs/abi.h: struct dc_probe_table, struct dc_probe_desc
PROBE_HDR, PROBE_DESC = struct.Struct("<IHHII"), struct.Struct("<IBBBbi4B4BBBBB8I4I2I3I")
PROBE_STRS = ("name", "symbol", "layer", "target", "path", "builds", "end", "alt")


def probe_table(obj):
    """The probe table of a generated object, decoded independently of the
    runtime's reader: (header dict, list of entry dicts with strings)."""
    off, size = elf_section(obj, ".dc_probes")
    data = open(obj, "rb").read()[off:off + size]
    magic, abi, desc_size, count, strings = PROBE_HDR.unpack_from(data)
    hdr = dict(magic=magic, abi=abi, desc_size=desc_size, count=count, strings=strings)
    pool = data[PROBE_HDR.size + count * desc_size:][:strings]

    def at(o):
        return pool[o:pool.index(b"\0", o)].decode()
    entries = []
    for i in range(count):
        v = PROBE_DESC.unpack_from(data, PROBE_HDR.size + i * desc_size)
        e = dict(id=v[0], mech=v[1], ret=v[2], nslots=v[3], size_slot=v[4], nr=v[5],
                 roles=list(v[6:10]), args=list(v[10:14]), effect=v[14], flags=v[15],
                 place=v[16], moved=v[17], skip=v[33], ret_at=v[34])
        e.update((k, at(o)) for k, o in zip(PROBE_STRS, v[18:26]))
        e["fields"] = [at(o) for o in v[26:30]]
        e["keys"] = [at(o) for o in v[30:32]]
        e["build"] = at(v[32])
        entries.append(e)
    return hdr, entries


def runtime_check(obj, *args, **kw):
    """datacrumbs-runtime --check [args] @obj: the result, and its
    "key value" lines as {key: [values]}."""
    r = run([RUNTIME, "--check"] + list(args) + [obj], **kw)
    said = {}
    for line in r.stdout.splitlines():
        k, _, v = line.partition(" ")
        said.setdefault(k, []).append(v.strip())
    return r, said


def check_fallback_names(said):
    """The fallbacks a --check named (none: an empty set)."""
    return {v.split(":")[0] for v in said.get("fallbacks", []) if v != "none"}


def check_said_as_run(said, start):
    """What --check said of an object against a run's start record (its
    args) with that object: the same fallbacks, uprobes, unsupported."""
    check(check_fallback_names(said) == set(filter(None, start["fallbacks"].split(","))),
          "--check's fallbacks %s, the run's %s" % (sorted(check_fallback_names(said)),
                                                     start["fallbacks"]))
    check(said.get("uprobes", [""])[0].split(":")[0] == start["uprobes"],
          "--check's uprobes %s, the run's %s" % (said.get("uprobes"), start["uprobes"]))
    check(said.get("unsupported") == [start["unsupported"] or "nothing"],
          "--check's unsupported %s, the run's %s" % (said.get("unsupported"),
                                                       start["unsupported"]))


def gzip_members(data):
    """Split a multi-member gzip file: returns (texts, truncated_tail)."""
    texts, pos = [], 0
    while pos < len(data):
        d = zlib.decompressobj(31)
        try:
            text = d.decompress(data[pos:])
        except zlib.error:
            return texts, True
        if not d.eof:
            return texts, True
        texts.append(text)
        pos = len(data) - len(d.unused_data)
    return texts, False


def bad_slices(events):
    """Slices that Perfetto would drop: on one thread, complete events must
    nest or not overlap. Returns (tid, id, start, end, id, start, end) of
    each partial overlap."""
    by_tid = {}
    for e in events:
        if e.get("ph") == "X":
            by_tid.setdefault(e["tid"], []).append(e)
    bad = []
    for tid, evs in by_tid.items():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            start, end = e["ts"], e["ts"] + e["dur"]
            while stack and stack[-1][1] <= start:
                stack.pop()
            if stack and end > stack[-1][1]:
                top = stack[-1]
                bad.append((tid, top[2], top[0], top[1], e.get("id"), start, end))
                continue
            stack.append((start, end, e.get("id")))
    return bad


class Trace:
    """A trace read and checked line by line. Keeps every complete event
    (ph X), the file names behind each fhash and the metadata."""

    def __init__(self, path, complete=True):
        self.path = path
        self.errors = []
        with open(path, "rb") as f:
            data = f.read()
        self.truncated = False
        if path.endswith(".gz"):
            members, self.truncated = gzip_members(data)
            for i, m in enumerate(members):
                if not m.endswith(b"\n"):
                    self.errors.append("gzip member %d does not end on a line" % i)
            self.members = len(members)
            text = b"".join(members)
        else:
            text = data
        lines = text.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        self.lines = lines
        if complete and self.truncated:
            self.errors.append("last gzip member is truncated")
        if not lines or lines[0] != "[":
            self.errors.append("first line is not '['")
        if complete and (not lines or lines[-1] != "]"):
            self.errors.append("last line is not ']'")
        self.events, self.meta = [], []
        self.files, self.hosts = {}, {}
        self.process_names, self.thread_names = {}, {}
        self.start = self.end = None
        last_id = 0
        for n, line in enumerate(lines[1:], 2):
            if line == "]":
                continue
            try:
                e = json.loads(line)
            except ValueError as exc:
                self.errors.append("line %d is not JSON: %s" % (n, exc))
                continue
            if not isinstance(e.get("ph"), str):
                self.errors.append("line %d: ph is not a string" % n)
            if "id" in e:
                if not e["id"] > last_id:
                    self.errors.append("line %d: id %s not increasing" % (n, e["id"]))
                last_id = e["id"]
            for k in ("pid", "tid"):
                if not (isinstance(e.get(k), int) and 0 <= e[k] < 2**32):
                    self.errors.append("line %d: %s is not a uint32" % (n, k))
            args = e.get("args", {})
            if e["ph"] == "M":
                self.meta.append(e)
                if e["name"] == "FH":
                    self.files[args["value"]] = args["name"]
                    if not args["name"]:
                        self.errors.append("line %d: a file with no name" % n)
                elif e["name"] == "HH":
                    self.hosts[args["value"]] = args["name"]
                elif e["name"] == "process_name":
                    self.process_names[e["pid"]] = args["name"]
                elif e["name"] == "thread_name":
                    self.thread_names[e["tid"]] = args["name"]
                continue
            for k in ("ts", "dur"):
                if not (isinstance(e.get(k), int) and e[k] >= 0):
                    self.errors.append("line %d: %s missing or negative" % (n, k))
            if args.get("hhash") not in self.hosts:
                self.errors.append("line %d: hhash not defined before use" % n)
            if "fhash" in args and args["fhash"] not in self.files:
                self.errors.append("line %d: fhash not defined before use" % n)
            if e.get("cat") == "dftracer" and e["name"] == "start":
                self.start = e
            elif e.get("cat") == "dftracer" and e["name"] == "end":
                self.end = e
            else:
                self.events.append(e)
        if complete and (self.start is None or self.end is None):
            self.errors.append("no start or end record")
        self.bad_slices = bad_slices(self.events)
        self.errors += ["thread %d: slice %s [%d, %d) overlaps %s [%d, %d) without nesting"
                        % b for b in self.bad_slices[:5]]

    def file(self, e):
        return self.files.get(e["args"].get("fhash"))

    def select(self, cat=None, name=None, path=None, pid=None):
        return [e for e in self.events
                if (cat is None or e["cat"] == cat)
                and (name is None or e["name"] == name)
                and (path is None or self.file(e) == path)
                and (pid is None or e["pid"] == pid)]


def fio_write(engine, path, out, bs, ios):
    """A shell command: fio writing @ios blocks of @bs bytes to @path with
    @engine, 4 in flight, its JSON report (its own counts) into @out."""
    return ("fio --name=j --ioengine=%s --rw=write --bs=%d --size=%d --iodepth=4 "
            "--filename=%s --output-format=json --output=%s" % (engine, bs, ios * bs, path, out))


def check_fio_writes(t, reports, files, ios):
    """fio_write()'s io_uring and libaio runs, their JSON reports in
    @reports and their files in @files as uring.* and aio.*, against the
    trace's requests: each engine's count and bytes as fio counts them,
    or, on a kernel that cannot trace it (io_uring before 6.0), its name
    in the start record's "unsupported" and no event."""
    unsupported = t.start["args"]["unsupported"].split(",")
    for engine, name, base in (("io_uring", "io_uring_write", "uring"),
                               ("libaio", "libaio_pwrite", "aio")):
        job = json.load(open(os.path.join(reports, base + ".json")))["jobs"][0]["write"]
        ev = t.select(cat="AIO", name=name, path=os.path.join(files, base + ".dat"))
        if engine in unsupported:
            check(not ev, "%s: named unsupported, and no event: %d" % (engine, len(ev)))
            continue
        got = sum(e["args"].get("size", 0) for e in ev)
        check(len(ev) == job["total_ios"] == ios and got == job["io_bytes"],
              "%s: %d requests of %d bytes, fio made %d of %d"
              % (engine, len(ev), got, job["total_ios"], job["io_bytes"]))


def call_totals(t, fname=lambda f: f):
    """A trace's calls per (layer, function, file): (calls, bytes). @fname
    maps a file's name (to merge names that differ between runs)."""
    out = {}
    for e in t.events:
        k = (e["cat"], e["name"], fname(t.file(e)))
        c, b = out.get(k, (0, 0))
        out[k] = (c + 1, b + e["args"].get("size", 0))
    return out


def counter_totals(t, fname=lambda f: f):
    """A profile's counter records, and their totals per (layer, function,
    file) as call_totals() gives a trace's: (calls, bytes)."""
    out, recs = {}, []
    for line in t.lines[1:-1]:
        if '"ph":"C"' not in line:
            continue
        e = json.loads(line)
        recs.append(e)
        a = e["args"]
        k = (e["cat"], e["name"], fname(t.files.get(a.get("fhash"))))
        c, b = out.get(k, (0, 0))
        out[k] = (c + a["count"], b + a["size_sum"])
    return out, recs


def check_dd_writes(t, path, n, bs):
    """dd's @n writes of @bs bytes to @path, at the sys and POSIX layers,
    each of its size."""
    for cat in ("sys", "POSIX"):
        w = t.select(cat=cat, name="write", path=path)
        check(len(w) == n and all(e["args"]["size"] == bs for e in w),
              "%s write on dd's file: %d, want %d of %d bytes" % (cat, len(w), n, bs))


def check_stdio_calls(totals, truth, what=""):
    """tests/workloads/stdio_calls' own counts (its JSON output, @truth)
    against @totals, as call_totals() or counter_totals() give them."""
    truth = json.load(open(truth))
    for name in ("fwrite", "fprintf", "fread", "fgets"):
        got = totals.get(("STDIO", name, truth["file"]), (0, 0))[0]
        check(got == truth[name], "%sSTDIO %s: %d, the program made %d"
              % (what, name, got, truth[name]))


def check_cold_read(t, path):
    """After drop_pages(@path), a read of it: the kernel layer's page-cache
    adds of its inode come, each under a read call. How many depends on
    the kernel's readahead, not on the workload."""
    ids = {e["id"]: e for e in t.events}
    ino = os.stat(path).st_ino
    adds = [e for e in t.select(cat="kernel", name="page_cache_add") if e["args"]["i_ino"] == ino]
    check(adds and all(ids.get(e["args"]["p_idx"], {}).get("name") == "read" for e in adds),
          "page-cache adds of the cold file under its reads: %d" % len(adds))


def drop_pages(path, python="python3"):
    """A shell command: drop @path's pages from the page cache, so that
    reading it again goes through the kernel's readahead."""
    return "%s -c %s" % (python, json.dumps(
        "import os; fd = os.open(%r, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, "
        "os.POSIX_FADV_DONTNEED)" % path))


def strace_counts(cmd, outfile, env=None, only=None):
    """Per-syscall call counts of cmd and its children, from strace -f -c;
    of the syscalls named in only, when given."""
    # LeakSanitizer cannot run under ptrace; sanitized builds still run.
    env = dict(env or os.environ, ASAN_OPTIONS="detect_leaks=0")
    # Only those stop the process (seccomp): while any uretprobe is
    # attached, returns go through the uretprobe syscall (Linux 6.11+),
    # which strace 6.1 does not know and crashes on in its summary.
    sel = ["--seccomp-bpf", "-e", "trace=" + ",".join(only)] if only else []
    r = run(["strace", "-f", "-c"] + sel + ["-o", outfile, "--"] + cmd, env=env)
    if r.returncode:
        sys.exit("strace failed: " + r.stderr)
    counts = {}
    with open(outfile) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 5 or not fields[0][0].isdigit():
                continue
            # % time, seconds, usecs/call, calls, [errors], syscall
            counts[fields[-1]] = int(fields[3])
    return counts


def check_against_strace(t, cmd, outfile):
    """Every syscall the trace's sys layer recorded, as many times as
    strace -f -c counted it for the same command."""
    got = {}
    for e in t.select(cat="sys"):
        got[e["name"]] = got.get(e["name"], 0) + 1
    want = strace_counts(cmd, outfile, only=sorted(got))
    for name, n in sorted(got.items()):
        check(want.get(name) == n, "sys %s: %d events, strace counted %s" % (name, n, want.get(name)))
    check(got, "some syscalls traced")
