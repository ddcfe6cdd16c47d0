#!/usr/bin/env python3
"""mpich_fortran.py builds and runs MPICH's Fortran tests (test/mpi/f77,
f08, f90 of an MPICH source tree, fetched by hand, never committed) with
one MPI's Fortran wrapper, so that gshmem's mpifort and an anchor (Open
MPI's mpifort.openmpi, MPICH's mpifort.mpich) are judged by the same
programs in the same sitting.

Each test of a directory's testlist is built from its Makefile.am sources
(the default NAME.f / NAME.f90 otherwise, with MPICH's Fortran mtest
routines, or its C mtest where the Makefile.am links those) and run at its
testlist's process count; it passes, as MPICH's runtests says, when it
exits 0 and prints "No Errors". The f90 directory's tests are the f77
ones turned into free form with "use mpi" by MPICH's maint/f77tof90 (its
autogen.sh step), run here on a copy of the suite under --work.

    test/mpich_fortran.py --suite /work/ext/mpich/test/mpi --impl gshmem \
        --prefix /tmp/p --work /tmp/w f77 f08
    test/mpich_fortran.py --suite ... --impl openmpi --work /tmp/w f77 f08

Every run sets GSHMEM_TCP_ADDR=127.0.0.1 (loopback only).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

DIRS = {
    "f77": "attr coll comm datatype ext info init pt2pt rma topo",
    "f08": "attr coll comm datatype ext info init misc pt2pt rma topo",
    "f90": "attr coll comm datatype ext info init misc pt2pt rma timer topo",
}


def impl_tools(args):
    """The wrappers and the launcher of --impl."""
    env = dict(os.environ, GSHMEM_TCP_ADDR="127.0.0.1")
    if args.impl == "gshmem":
        b = os.path.join(args.prefix, "bin")
        return (os.path.join(b, "mpifort"), os.path.join(b, "mpicc"),
                lambda n: [os.path.join(b, "gshmem"), "run", "-n", str(n)], env)
    if args.impl == "openmpi":
        # osc pt2pt: Debian's Open MPI 4.1 otherwise takes osc rdma,
        # which refuses every window at one process (MPI_ERR_WIN).
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_btl_tcp_if_include="lo", OMPI_MCA_oob_tcp_if_include="lo",
                   OMPI_MCA_osc="pt2pt")
        return ("mpifort.openmpi", "mpicc.openmpi",
                lambda n: ["mpirun.openmpi", "--oversubscribe", "-np", str(n)], env)
    if args.impl == "mpich":
        return ("mpifort.mpich", "mpicc.mpich",
                lambda n: ["mpirun.mpich", "-n", str(n)], env)
    sys.exit("unknown --impl " + args.impl)


def makefile_vars(path):
    """Makefile.am's assignments, continuation lines joined."""
    out = {}
    if not os.path.exists(path):
        return out
    text = open(path).read().replace("\\\n", " ")
    for line in text.splitlines():
        m = re.match(r"^\s*([A-Za-z0-9_]+)\s*(\+?=)\s*(.*)$", line)
        if m:
            k, op, v = m.groups()
            out[k] = (out.get(k, "") + " " + v) if op == "+=" else v
    return out


def testlist(d):
    for name in ("testlist", "testlist.in"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            for line in open(p):
                line = line.split("#")[0].strip()
                if not line or line.startswith("@"):
                    continue
                f = line.split()
                opts = dict(x.split("=", 1) for x in f[2:] if "=" in x)
                yield f[0], int(f[1]) if len(f) > 1 else 1, opts
            return


def sh(cmd, cwd, env, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"").decode(errors="replace")


def prepare_f90(suite, work):
    """A copy of the suite whose f90 directory holds the f77 tests turned
    into free form with use mpi by MPICH's own maint/f77tof90, as its
    autogen.sh does (the f08 ext tests take C files from there too)."""
    dst = os.path.join(work, "suite")
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for d in ("f77", "f90", "f08", "util", "include", "maint"):
        shutil.copytree(os.path.join(suite, d), os.path.join(dst, d), symlinks=True)
    for d in sorted(os.listdir(os.path.join(dst, "f77"))):
        if not os.path.isdir(os.path.join(dst, "f77", d)):
            continue
        os.makedirs(os.path.join(dst, "f90", d), exist_ok=True)
        subprocess.run(["perl", "maint/f77tof90", "f77/" + d, "f90/" + d, "Makefile.am", "Makefile.ap"],
                       cwd=dst, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return dst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True, help="MPICH's test/mpi")
    ap.add_argument("--impl", required=True, help="gshmem, openmpi or mpich")
    ap.add_argument("--prefix", help="gshmem's install prefix")
    ap.add_argument("--work", required=True)
    ap.add_argument("--only", help="run only these tests (comma list)")
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--dirs", help="these directories instead of DIRS' (space-separated)")
    ap.add_argument("suites", nargs="+")
    args = ap.parse_args()
    fc, cc, launch, env = impl_tools(args)
    os.makedirs(args.work, exist_ok=True)
    args.suite = prepare_f90(os.path.abspath(args.suite), os.path.join(args.work, args.impl))
    only = set(args.only.split(",")) if args.only else None
    inc = os.path.join(args.suite, "include")
    fflags = ["-w", "-fallow-argument-mismatch"]
    cflags = ["-w", "-DF77_NAME_LOWER_USCORE", "-I" + inc]
    total = passed = 0
    for suite in args.suites:
        work = os.path.join(args.work, args.impl, suite)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        util = os.path.join(work, "util")
        os.makedirs(util)
        fsrc = {"f77": "mtest_f77.f", "f08": "mtest_f08.f90", "f90": "mtest_f90.f90"}[suite]
        rc, out = sh([fc] + fflags + ["-c", os.path.join(args.suite, "util", fsrc), "-o", "mtestf.o"],
                     util, env, 300)
        if rc != 0:
            print("mtest (%s) does not build:\n%s" % (fsrc, out))
            sys.exit(1)
        cobjs = []
        for c in ("mtest.c", "mtest_common.c", "mtest_single.c"):
            o = c[:-2] + ".o"
            rc, out = sh([cc] + cflags + ["-c", os.path.join(args.suite, "util", c), "-o", o], util, env, 300)
            if rc == 0:
                cobjs.append(os.path.join(util, o))
        for d in (args.dirs or DIRS[suite]).split():
            src = os.path.join(args.suite, suite, d)
            wd = os.path.join(work, d)
            os.makedirs(wd)
            for h in os.listdir(src) if os.path.isdir(src) else []:
                if h.endswith(".h.in"):
                    t = open(os.path.join(src, h)).read()
                    t = t.replace("@F77_MPI_ADDRESS@", "integer*8").replace("@F77_MPI_OFFSET@", "integer*8")
                    open(os.path.join(wd, h[:-3]), "w").write(t)
            mk = makefile_vars(os.path.join(src, "Makefile.am"))
            mkp = os.path.join(src, "Makefile.am")
            mktext = open(mkp).read() if os.path.exists(mkp) else ""
            ext = mk.get("AM_DEFAULT_SOURCE_EXT", ".f").strip() or ".f"
            for name, np, opts in testlist(src):
                if only and name not in only:
                    continue
                total += 1
                srcs = (mk.get(name + "_SOURCES") or mk.get("nodist_" + name + "_SOURCES") or name + ext).split()
                ldadd = mk.get(name + "_LDADD")
                objs, why = [], None
                for s in srcs:
                    p = os.path.join(src, s)
                    # a source Makefile.am copies from another directory
                    m = re.search(r"^" + re.escape(s) + r":\s*\$\(srcdir\)/(\S+)", mktext, re.M)
                    if not os.path.exists(p) and m:
                        p = os.path.normpath(os.path.join(src, m.group(1)))
                    if not os.path.exists(p):
                        why = "source %s not in the suite (made by MPICH's configure)" % s
                        break
                    o = os.path.join(wd, s.rsplit(".", 1)[0] + ".o")
                    if s.endswith(".c"):
                        cmd = [cc] + cflags + ["-c", p, "-o", o]
                    else:
                        # -I../attr as f77/rma's Makefile.am says
                        cmd = [fc] + fflags + ["-I" + wd, "-I" + src, "-I" + os.path.join(work, "attr"), "-c", p, "-o", o]
                    rc, out = sh(cmd, wd, env, 300)
                    if rc != 0:
                        why = "compile %s: %s" % (s, out.strip().splitlines()[-12:])
                        break
                    objs.append(o)
                if why is None:
                    if ldadd is not None and "mtest_c_objects" in ldadd:
                        objs += cobjs
                    elif ldadd is None or ldadd.strip():
                        objs.append(os.path.join(util, "mtestf.o"))
                    link = fc if any(not s.endswith(".c") for s in srcs) else cc
                    rc, out = sh([link, "-o", name] + objs, wd, env, 300)
                    if rc != 0:
                        why = "link: %s" % out.strip().splitlines()[-12:]
                if why is None:
                    targs = opts.get("arg", "").split()
                    tenv = dict(env)
                    if "env" in opts:
                        k, v = opts["env"].split("=", 1)
                        tenv[k] = v
                    rc, out = sh(launch(np) + [os.path.join(wd, name)] + targs, wd, tenv, args.timeout)
                    ok = rc == 0 and re.search(r"^\s*No Errors\s*$", out, re.M)
                    if not ok:
                        tail = [l for l in out.strip().splitlines() if l.strip()][-15:]
                        why = "rc=%s: %s" % (rc, " | ".join(tail))
                status = "PASS" if why is None else "FAIL"
                passed += why is None
                print("%s %s/%s/%s np=%d%s" % (status, suite, d, name, np, "" if why is None else "  " + why),
                      flush=True)
    print("TOTAL %s %s: %d of %d pass" % (args.impl, " ".join(args.suites), passed, total), flush=True)


if __name__ == "__main__":
    main()
