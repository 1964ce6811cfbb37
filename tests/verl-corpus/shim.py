"""The stand-in for every program a verl launch script calls (python, ray, srun, torchrun, ...).

`scripts/verl-corpus` puts a directory of links to this file first on PATH and runs each
launch script with bash: each program the script starts records its argument vector (as
JSON, one line, to $RP_CORPUS_RECORD) and exits 0, so the corpus holds the words exactly as
the shell expanded them. Nothing is executed. A few programs print what a script reads from
them (a GPU count, Slurm's host names), so that the script goes on as on a real machine.
"""

import json
import os
import sys

PROGRAM = os.path.basename(sys.argv[0])
ARGS = sys.argv[1:]

GPUS = 8


def record():
    path = os.environ.get("RP_CORPUS_RECORD")
    if not path:
        return
    entry = {"program": PROGRAM, "argv": [PROGRAM, *ARGS], "cwd": os.getcwd()}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def answer():
    """What a script may read from the program's output."""
    text = " ".join(ARGS)
    if PROGRAM == "nvidia-smi":
        if "--query-gpu" in text and ("count" in text):
            print(GPUS)
        else:
            for i in range(GPUS):
                print(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i:08d})")
    elif PROGRAM == "npu-smi":
        print("NPU count: 8")
    elif PROGRAM.startswith("python") and "-c" in ARGS:
        code = ARGS[ARGS.index("-c") + 1] if ARGS.index("-c") + 1 < len(ARGS) else ""
        if "device_count" in code:
            print(GPUS)
        elif "gethostbyname" in code or "get_ip" in code or "gethostname" in code:
            print("10.0.0.1")
        elif "__file__" in code or "__path__" in code:
            print("/opt/site-packages/verl")
    elif PROGRAM == "scontrol" and "hostnames" in text:
        print("node-0\nnode-1")
    elif PROGRAM == "hostname":
        print("10.0.0.1" if ("-I" in ARGS or "-i" in ARGS or "--ip" in text) else "node-0")
    elif PROGRAM == "nproc":
        print(64)
    elif PROGRAM == "date":
        # A fixed instant, so that names built from the date do not change between runs.
        import datetime

        fixed = datetime.datetime(2026, 1, 1, 0, 0, 0)
        fmt = next((a[1:] for a in ARGS if a.startswith("+")), "%a %b %d %H:%M:%S UTC %Y")
        print(fixed.strftime(fmt))
    elif PROGRAM == "shuf":
        # The first values, not a random pick: the same words in every run.
        if "-i" in ARGS and ARGS.index("-i") + 1 < len(ARGS):
            lo, _, hi = ARGS[ARGS.index("-i") + 1].partition("-")
            n = int(ARGS[ARGS.index("-n") + 1]) if "-n" in ARGS else int(hi) - int(lo) + 1
            for v in range(int(lo), min(int(hi), int(lo) + n - 1) + 1):
                print(v)
        elif "-e" in ARGS:
            for v in ARGS[ARGS.index("-e") + 1 :]:
                print(v)
        else:
            sys.stdout.write(sys.stdin.read())
    elif PROGRAM == "mktemp":
        # As mktemp, with the X's of its template as zeros: the same name in every run.
        directory = "-d" in ARGS or "--directory" in ARGS
        base = os.environ.get("TMPDIR", "/tmp")
        template = None
        i = 0
        while i < len(ARGS):
            a = ARGS[i]
            if a in ("-p", "--tmpdir") and i + 1 < len(ARGS):
                base = ARGS[i + 1]
                i += 1
            elif a.startswith("--tmpdir="):
                base = a.split("=", 1)[1]
            elif not a.startswith("-"):
                template = a
            i += 1
        name = (template or "tmp.XXXXXXXXXX").replace("X", "0")
        path = name if "/" in name and template and "-p" not in ARGS else os.path.join(base, name)
        try:
            if directory:
                os.makedirs(path, exist_ok=True)
            else:
                open(path, "a").close()
        except OSError:
            pass
        print(path)


record()
answer()
sys.exit(0)
