"""llama.cpp's HTTP server run in-process by the ``xllamacpp`` wheel: ``e2ebench model serve
--server xllamacpp`` starts ``python -m pytest_e2ebench.tools.xlserver MODEL --port N ...``
with the wheel's package on ``PYTHONPATH`` (unpacked in the model cache by localmodel.py; it
is not a dependency of this package). The options are llama-server's, with the same meaning;
the server listens on 127.0.0.1 and applies the model's chat template, as ``serve`` asks of
llama-server. It runs until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import signal
import sys


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="xlserver", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="the GGUF file")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alias", required=True, help="the model's name in the API")
    parser.add_argument("-t", dest="threads", type=int, default=1)
    parser.add_argument("-c", dest="context", type=int, required=True)
    parser.add_argument("-n", dest="max_tokens", type=int, required=True)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    import xllamacpp  # from the model cache (PYTHONPATH), see the module's docstring

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostname = "127.0.0.1"
    params.port = args.port
    params.model_alias = {args.alias}  # a set of names: a plain string would be its letters
    params.use_jinja = True  # the model's own template renders tools and parses tool calls
    params.n_ctx = args.context
    params.n_predict = args.max_tokens  # a cap on every answer, as llama-server's -n
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    server = xllamacpp.Server(params)  # loads the model, then serves from its own threads
    print(f"listening on {server.listening_address}", flush=True)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    try:
        while True:
            signal.pause()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
