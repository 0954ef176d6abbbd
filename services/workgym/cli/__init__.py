"""The ``workgym`` command: serve (every service starts here; on a Ray cluster, ``ray up``),
prebuild snapshots, list tasks, run an agent on a task, bench an agent and compare two
benches, export training data."""

from __future__ import annotations

import argparse
import os
import sys

from . import (
    bench,
    compare,
    curriculum,
    episode,
    export,
    factory,
    new_replica,
    prebuild,
    ray,
    run,
    serve,
    tasks,
)

# Each subcommand's module adds its parser and handler, in the order `workgym --help` lists them
# (bench's module adds `report` too).
COMMANDS = (serve, ray, prebuild, tasks, run, episode, bench, compare, curriculum, export,
            new_replica, factory)
SIGPIPE_EXIT = 128 + 13  # a shell's code for a command its reader closed on (`| head`)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="workgym", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add(commands)
    return root


def main(argv: list[str] | None = None) -> int:
    """The command's exit code: 2 and one line on stderr for any error (a server that does not
    answer, a refusal, a bad setting), 141 when its reader closed stdout early (``| head``)."""
    from pydantic import ValidationError

    from workgym_core.errors import WorkGymError

    from ..errors import WorkGymClientError

    try:
        args = parser().parse_args(argv)
        code = int(args.func(args))
        sys.stdout.flush()  # a reader gone (`| head`) shows here, not at exit
        return code
    except (WorkGymError, WorkGymClientError) as exc:
        print(f"workgym: error: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:  # a setting (WORKGYM_*) out of its bounds; never its value
        wrong = "; ".join(f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
                          for error in exc.errors())
        print(f"workgym: error: bad {exc.title} ({wrong})", file=sys.stderr)
        return 2
    except BrokenPipeError:  # Python's "Note on SIGPIPE": quiet, and no second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT
