"""Runs a Go program against go-yaml v2.4.0 and sigs.k8s.io/yaml, the reader `kubectl` (and
the API server, for a YAML body) turns YAML into JSON with: for the KubeRay fixture
scripts (`kuberay-yaml-merges`, `kuberay-yaml-tags`). Needs Go and both packages, on Debian
and Ubuntu `apt-get install golang-go golang-gopkg-yaml.v2-dev golang-k8s-sigs-yaml-dev`;
the program is built in GOPATH mode against /usr/share/gocode."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GOPATH = Path("/usr/share/gocode")
GO_YAML = GOPATH / "src" / "gopkg.in" / "yaml.v2"
SIGS_YAML = GOPATH / "src" / "sigs.k8s.io" / "yaml"


def go_yaml_version() -> str:
    """go-yaml's version, after checking that Go and both packages are there and that it
    is 2.4.0 (sigs.k8s.io/yaml's copy)."""
    if shutil.which("go") is None or not GO_YAML.is_dir() or not SIGS_YAML.is_dir():
        sys.exit(
            "needs Go, go-yaml v2 and sigs.k8s.io/yaml: apt-get install golang-go "
            "golang-gopkg-yaml.v2-dev golang-k8s-sigs-yaml-dev"
        )
    version = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "golang-gopkg-yaml.v2-dev"],
        capture_output=True, text=True, check=True,
    ).stdout
    if not version.startswith("2.4.0"):
        sys.exit(f"go-yaml 2.4.0 is needed (sigs.k8s.io/yaml's copy), not {version}")
    return version


def run_go(program: str, texts: list[str]) -> list[dict]:
    """Runs `program` (a Go `main` that reads a JSON list of documents on stdin and writes
    a JSON list of results) on `texts`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "main.go"
        path.write_text(program, encoding="utf-8")
        env = dict(os.environ, GO111MODULE="off", GOPATH=str(GOPATH), GOFLAGS="")
        env.setdefault("GOCACHE", str(Path(tmp) / "cache"))
        done = subprocess.run(
            [shutil.which("go"), "run", str(path)], input=json.dumps(texts), capture_output=True,
            text=True, env=env, check=True,
        )
    return json.loads(done.stdout)
