"""The ``resource-pool`` command of the wheel: the CLI's own code, run in this process."""

from __future__ import annotations

import signal
import sys

from . import _native


def main() -> None:
    """Runs ``resource-pool`` with this process's arguments and exits with its status."""
    # The command runs in Rust without the GIL: let Ctrl-C end it as it ends the binary,
    # instead of waiting as a KeyboardInterrupt for the command to return.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_native.run_cli(["resource-pool", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
