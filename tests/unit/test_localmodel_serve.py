"""``e2ebench model serve`` on a port another server holds: refused before anything starts
(that server would otherwise answer the new one's /health check, and the new one exit)."""

from __future__ import annotations

import socket

import pytest

from pytest_e2ebench.tools import localmodel
from pytest_e2ebench.tools.localmodel import ModelError


def test_a_port_in_use_is_refused_before_the_model_is_fetched(tmp_path, monkeypatch):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path))  # nothing may be fetched into it
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(ModelError, match=f"port {port} on 127.0.0.1 is in use"):
            localmodel.serve(port=port)
    assert not (tmp_path / "model").exists()
