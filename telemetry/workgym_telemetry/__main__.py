"""``python -m workgym_telemetry [--host --port]``: serve the telemetry store with uvicorn."""

from __future__ import annotations

import argparse
import sys

import uvicorn

from workgym_core import credentials

from .app import create_app
from .settings import TelemetrySettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workgym_telemetry", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4318, help="the OTLP/HTTP port")
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    settings = TelemetrySettings()
    key = ("WORKGYM_API_KEY" if "api_key" in settings.model_fields_set
           else settings.config_dir / credentials.API_KEY_FILE)
    print(f"workgym-telemetry: serving on http://{args.host}:{args.port}; reading episodes "
          f"needs the operator's API key ({key})", file=sys.stderr)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level=args.log_level)
    return 0


sys.exit(main())
