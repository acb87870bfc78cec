"""A client of layoutscope-agent's HTTP/JSON API (``GET /openapi.json`` on the agent lists it).

    >>> agent = Agent("http://127.0.0.1:8765/#token=3f9c...")        # the URL the agent prints
    >>> results = agent.run("transpose", dim=[8192])                  # doctest: +SKIP
    >>> to_dataframe(results)[["variant", "dim", "useful_bandwidth_B_per_s"]]      # doctest: +SKIP

The agent binds loopback and needs the bearer token from its URL; runs queue one per device, so a second
run while one is going is answered 409 and :meth:`Agent.run` waits and retries.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional


class AgentError(RuntimeError):
    """The agent refused a request or a run did not succeed.

    ``status`` is the HTTP status (0 for a run that ended badly), ``code`` and ``field`` the agent's own
    error code and the offending request field (``params.dim[0]``), when it names one.
    """

    def __init__(self, message: str, status: int = 0, code: str = "", field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.field = field

    def __str__(self) -> str:
        head = f"HTTP {self.status}" if self.status else "run"
        return f"{head}: {self.message}" + (f" (field {self.field})" if self.field else "")


class Agent:
    """A layoutscope-agent at ``url``; the token is taken from the URL's ``#token=`` fragment unless given."""

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"agent url must be http://host:port, got {url!r}")
        if token is None:
            token = urllib.parse.parse_qs(parts.fragment).get("token", [None])[0]
        if not token:
            raise ValueError("the agent needs its bearer token: pass token= or the URL with #token=...")
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.token = token
        self.timeout = timeout
        self._final: Optional[frozenset] = None

    def __repr__(self) -> str:
        return f"Agent({self.base!r})"

    # -- HTTP ---------------------------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: Any = None, raw: bool = False) -> Any:
        data = None
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                payload = res.read()
                if raw:
                    return payload.decode()
                return json.loads(payload) if payload else None
        except urllib.error.HTTPError as e:
            raise _http_error(e) from None

    # -- endpoints ----------------------------------------------------------------------------------------
    def health(self) -> Dict[str, Any]:
        """``GET /healthz``."""
        return self._request("GET", "/healthz")

    def version(self) -> Dict[str, Any]:
        """Agent version, git sha and build flags."""
        return self._request("GET", "/version")

    def openapi(self) -> Dict[str, Any]:
        """``GET /openapi.json``: the agent's OpenAPI description, the run request and results schemas bundled in."""
        return self._request("GET", "/openapi.json")

    def final_statuses(self) -> frozenset:
        """The statuses of a run that ended (its record changes no more), as the agent's description lists them
        (``FinalRunStatus``); asked once per ``Agent``."""
        if self._final is None:
            self._final = frozenset(self.openapi()["components"]["schemas"]["FinalRunStatus"]["enum"])
        return self._final

    def devices(self) -> List[Dict[str, Any]]:
        """The backend's devices."""
        return self._request("GET", "/v1/devices")["devices"]

    def benchmarks(self) -> List[Dict[str, Any]]:
        """The benchmarks with their parameters, defaults and bounds."""
        return self._request("GET", "/v1/benchmarks")["benchmarks"]

    def runs(self) -> List[Dict[str, Any]]:
        """The run history, oldest first."""
        return self._request("GET", "/v1/runs")["runs"]

    def submit(self, benchmark: str, *, device: Optional[int] = None, profile: bool = False, **params: Any) -> str:
        """Queue a run; returns its id. ``params`` are the benchmark's (``dim``, ``variants``, ``n``,
        ``touch_fields``, ``repetitions`` ...); a bad one is refused with the field it names."""
        body: Dict[str, Any] = {"benchmark": benchmark, "params": params}
        if device is not None:
            body["device"] = device
        if profile:
            body["profile"] = True
        return self._request("POST", "/v1/runs", body)["id"]

    def get(self, run_id: str) -> Dict[str, Any]:
        """One run record: status, progress and, once it succeeded, ``result``."""
        return self._request("GET", f"/v1/runs/{urllib.parse.quote(run_id)}")

    def csv(self, run_id: str) -> str:
        """A finished run's results as CSV."""
        return self._request("GET", f"/v1/runs/{urllib.parse.quote(run_id)}?format=csv", raw=True)

    def cancel(self, run_id: str) -> Dict[str, Any]:
        """Cancel a queued or running run."""
        return self._request("DELETE", f"/v1/runs/{urllib.parse.quote(run_id)}")

    def wait(self, run_id: str, timeout: Optional[float] = None, poll: float = 0.1) -> Dict[str, Any]:
        """Poll until the run ends; returns its record."""
        deadline = None if timeout is None else time.monotonic() + timeout
        final = self.final_statuses()
        while True:
            record = self.get(run_id)
            if record["status"] in final:
                return record
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} still {record['status']} after {timeout} s")
            time.sleep(poll)

    def run(
        self,
        benchmark: str,
        *,
        device: Optional[int] = None,
        profile: bool = False,
        timeout: Optional[float] = None,
        **params: Any,
    ) -> Dict[str, Any]:
        """Run a benchmark to the end and return its results document (``schemas/results.schema.json``).
        Waits while the device is busy with another run; raises :class:`AgentError` when the run fails."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                run_id = self.submit(benchmark, device=device, profile=profile, **params)
                break
            except AgentError as e:
                if e.status != 409 or (deadline is not None and time.monotonic() > deadline):
                    raise
                time.sleep(0.5)
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        record = self.wait(run_id, timeout=left)
        if record["status"] != "succeeded":
            raise AgentError(f"run {run_id} {record['status']}: {record.get('error') or record.get('message')}")
        return record["result"]


def _http_error(e: urllib.error.HTTPError) -> AgentError:
    body = e.read().decode(errors="replace")
    try:
        err = json.loads(body)["error"]
        return AgentError(err.get("message", body), e.code, err.get("code", ""), err.get("field", ""))
    except (ValueError, KeyError, TypeError):
        return AgentError(body or e.reason, e.code)


def rows(results: Dict[str, Any]) -> List[Dict[str, Any]]:
    """One flat dict per benchmark state: benchmark, backend, state, its axis values, whether it was
    skipped, verification, and each summary by its tag (``nv/cold/time/gpu/median`` ...)."""
    out = []
    for bench in results["benchmarks"]:
        for state in bench["states"]:
            row: Dict[str, Any] = {"benchmark": bench["name"], "backend": bench["backend"], "state": state["name"]}
            row.update(state["axis_values"])
            row["is_skipped"] = state["is_skipped"]
            row["verified"] = state["verification"]["passed"]
            for s in state["summaries"]:
                row[s["tag"]] = s["value"]
            out.append(row)
    return out


def results_csv(results: Dict[str, Any]) -> str:
    """The results document as CSV, written by the agent's own printer (compiled into the extension): the text
    ``GET /v1/runs/{id}?format=csv`` answers for the same run, byte for byte. One row per state, units in the
    column names (``time_median_s``, ``useful_bandwidth_B_per_s`` ...), cells that do not apply empty."""
    from layoutscope import _engine

    return _engine.results_csv(json.dumps(results))


def to_dataframe(results: Dict[str, Any]):
    """The results document as a pandas DataFrame of :func:`results_csv`: the agent's CSV columns, one row per
    state. Needs pandas; :func:`rows` gives every summary by its tag as plain dicts."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_dataframe needs pandas (Debian: python3-pandas); rows() gives plain dicts") from e
    import io

    # round_trip: each number exactly the double the agent printed (pandas' default parser may be off by an ulp)
    return pandas.read_csv(io.StringIO(results_csv(results)), float_precision="round_trip")
