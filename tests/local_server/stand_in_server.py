"""A stand-in for ``python -m llama_cpp.server`` (same arguments), so the managed-server code
is tested without the ``local`` extra. ``STAND_IN_MODE``: ``ok`` (default) answers
``/v1/models`` and every chat completion with one short text reply; ``exit`` fails at start
like a bad model file; ``mute`` never listens."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--model", "--model_alias", "--host", "--port", "--n_ctx", "--n_threads"):
        parser.add_argument(name, required=True)
    parser.add_argument("--chat_format")
    args = parser.parse_args()
    mode = os.environ.get("STAND_IN_MODE", "ok")
    print(f"stand-in: model {args.model} as {args.model_alias}, mode {mode}", flush=True)
    if mode == "exit":
        print("error: failed to load model", flush=True)
        sys.exit(3)
    if mode == "mute":
        time.sleep(3600)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt: str, *a: Any) -> None:
            print("stand-in:", fmt % a, flush=True)

        def _send(self, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send({"object": "list", "data": [{"id": args.model_alias}]})

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["content-length"])))
            text = os.environ.get("STAND_IN_REPLY", "Thanks, goodbye.")
            self._send(
                {
                    "id": "c",
                    "object": "chat.completion",
                    "created": 0,
                    "model": request["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
                }
            )

    ThreadingHTTPServer((args.host, int(args.port)), Handler).serve_forever()


if __name__ == "__main__":
    main()
