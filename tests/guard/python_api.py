"""`resource_pool.verl.check` where verl imports (tests/guard/run.sh, one release's Python):
the pools are the installed verl's own (its version in `installed`), the same the command's
`--python` builds (PROBE.json), and `python=False` is the offline reader.

    tests/verl/python V tests/guard/python_api.py V CLUSTER.toml PROBE.json LINE...
"""

import json
import sys

import resource_pool as rp


def main():
    version, cluster, probe_file, line = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    report = rp.verl.check(line, cluster=cluster)
    data = report.as_dict()
    installed = data.get("installed") or {}
    assert (installed.get("verl") or {}).get("version") == version, installed
    probe = json.load(open(probe_file))
    assert data["pools"] == probe["pools"], (data["pools"], probe["pools"])
    assert data["mapping"] == probe["mapping"], (data["mapping"], probe["mapping"])
    offline = rp.verl.check(line, cluster=cluster, python=False).as_dict()
    assert "installed" not in offline, offline.get("installed")
    try:
        rp.verl.check(line, cluster=cluster, python=sys.executable, verl_version=version)
    except rp.ArgumentError:
        pass
    else:
        raise AssertionError("python= with verl_version= is refused")
    print("ok: verl %s: rp.verl.check builds with the installed verl what --python builds: %s" % (version, data["pools"]))


if __name__ == "__main__":
    main()
