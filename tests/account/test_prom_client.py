"""The Prometheus client against misbehaving servers: every answer is a result or one clear error.

Answers are served by httpx's MockTransport (the client's own code path from the socket on), and
for the deadline by a real loopback server that answers too slowly.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gpuplane.account.prom import MAX_ANSWER_BYTES, MAX_POINTS_PER_QUERY, PromClient, PromError, choose_step
from gpuplane.account.promurl import check_url, redact_text, redact_url
from gpuplane.errors import EXIT_UPSTREAM, EXIT_USAGE, UsageError

Handler = Callable[[httpx.Request], httpx.Response]


def _client(handler: Handler, max_answer_bytes: int = MAX_ANSWER_BYTES) -> PromClient:
    return PromClient(
        "http://user:secret@prom.test",
        transport=httpx.MockTransport(handler),
        max_answer_bytes=max_answer_bytes,
    )


def _answer(data: object, status: int = 200) -> Handler:
    body = json.dumps({"status": "success", "data": data}).encode()
    return lambda request: httpx.Response(status, content=body)


def _vector(*values: str) -> Handler:
    return _answer(
        {
            "resultType": "vector",
            "result": [{"metric": {"i": str(i)}, "value": [1, v]} for i, v in enumerate(values)],
        }
    )


# -- credentials ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://bob:pw@prom.example:9090/x", "https://***@prom.example:9090/x"),
        ("alice:SECRETPW@host:9", "***@host:9"),  # no scheme
        ("http://prom:9090/api?token=abc&x=1", "http://prom:9090/api?token=***&x=1"),
        ("http://prom:9090/?access_token=abc#f", "http://prom:9090/?access_token=***#f"),
        ("http://h/?X-Amz-Signature=s&sig=t&apikey=k", "http://h/?X-Amz-Signature=***&sig=***&apikey=***"),
        ("http://prom:9090", "http://prom:9090"),
    ],
)
def test_redact_url_hides_userinfo_and_token_like_parameters(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_redact_text_hides_urls_and_bare_userinfo_inside_messages() -> None:
    text = "failed for http://u:p4ss@h:1/q?token=t0k and alice:SECRETPW@host:9 (again alice:SECRETPW@host:9)"
    shown = redact_text(text)
    assert "p4ss" not in shown and "t0k" not in shown and "SECRETPW" not in shown
    assert "http://***@h:1/q?token=***" in shown and "***@host:9" in shown


@given(
    st.text(alphabet="abcXYZ019-_.~", min_size=1, max_size=12),
    st.text(alphabet="abcXYZ019-_.~!$", min_size=1, max_size=12),
)
@example("admin", "s3cret")
def test_a_password_in_any_url_never_survives_redaction(user: str, password: str) -> None:
    for url in (
        f"http://{user}:{password}@h:9090/p",
        f"{user}:{password}@h:9090",
        f"https://h/?token={password}",
    ):
        assert f":{password}@" not in redact_url(url) and f"token={password}" not in redact_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://prom:99999",
        "http://prom:abc",
        "http://[::1",
        "prom:9090",
        "ftp://prom",
        "http://",
        "http://:9090",
        "http://prom:0",
    ],
)
def test_malformed_urls_are_usage_errors_that_never_show_credentials(url: str) -> None:
    with pytest.raises(UsageError) as info:
        check_url(url.replace("://", "://u:pw@", 1) if "://" in url else url)
    assert info.value.exit_code == EXIT_USAGE and info.value.option == "--prometheus"
    assert ":pw@" not in str(info.value)


def test_unreachable_and_refusing_servers_are_upstream_errors_without_credentials() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused for http://user:secret@prom.test", request=request)

    with pytest.raises(PromError) as info:
        _client(refuse).instant("up", 0)
    assert info.value.exit_code == EXIT_UPSTREAM
    assert "cannot reach Prometheus" in str(info.value) and "secret" not in str(info.value)
    with pytest.raises(PromError, match="refused the credentials"):
        _client(lambda r: httpx.Response(401, content=b"")).instant("up", 0)


# -- answers ------------------------------------------------------------------------------------


def test_nan_samples_are_no_value_and_a_vector_of_nan_is_empty() -> None:
    assert _client(_vector("NaN")).instant("0/0", 0) == []
    (series,) = _client(_vector("NaN", "2.5")).instant("x", 0)
    assert series.value == 2.5


@pytest.mark.parametrize("value", ["+Inf", "-Inf", "Inf", "1e400"])
def test_infinite_samples_are_refused_naming_the_query(value: str) -> None:
    with pytest.raises(PromError) as info:
        _client(_vector(value)).instant("sum by (pod) (my_query)", 0)
    assert "not finite" in str(info.value) and "sum by (pod) (my_query)" in str(info.value)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<html>bad gateway</html>", "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'"just a string"', "not an object"),
        (b"\xff\xfe garbage", "not JSON"),
        (json.dumps({"status": "success"}).encode(), "no `data`"),
        (
            json.dumps({"status": "success", "data": {"resultType": "streams", "result": []}}).encode(),
            "resultType",
        ),
        (
            json.dumps({"status": "success", "data": {"resultType": "vector", "result": {}}}).encode(),
            "not a list",
        ),
        (
            json.dumps(
                {"status": "success", "data": {"resultType": "vector", "result": [[1, "2"]]}}
            ).encode(),
            "not an object",
        ),
        (
            json.dumps(
                {
                    "status": "success",
                    "data": {"resultType": "vector", "result": [{"metric": {"a": 1}, "value": [1, "2"]}]},
                }
            ).encode(),
            "label names to strings",
        ),
        (
            json.dumps(
                {
                    "status": "success",
                    "data": {"resultType": "vector", "result": [{"metric": {}, "value": [1, 2]}]},
                }
            ).encode(),
            "not a string",
        ),
        (
            json.dumps(
                {
                    "status": "success",
                    "data": {"resultType": "vector", "result": [{"metric": {}, "value": ["t", "2"]}]},
                }
            ).encode(),
            "sample time",
        ),
        (
            json.dumps(
                {
                    "status": "success",
                    "data": {"resultType": "vector", "result": [{"metric": {}, "value": [1, "abc"]}]},
                }
            ).encode(),
            "not a number",
        ),
        (
            json.dumps(
                {"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {}}]}}
            ).encode(),
            "`values`",
        ),
        (
            json.dumps({"status": "error", "errorType": "bad_data", "error": "parse error"}).encode(),
            "bad_data: parse error",
        ),
    ],
)
def test_every_malformed_answer_is_one_clear_error(body: bytes, says: str) -> None:
    with pytest.raises(PromError) as info:
        _client(lambda r: httpx.Response(200, content=body)).instant("the_query", 0)
    assert says in str(info.value) and "the_query" in str(info.value)
    assert "secret" not in str(info.value)


def test_answers_larger_than_the_cap_are_refused_while_streaming() -> None:
    big = b'{"status":"success","data":{"resultType":"vector","result":[' + b" " * 3_000_000 + b"]}}"
    with pytest.raises(PromError, match="larger than 1 MiB"):
        _client(lambda r: httpx.Response(200, content=big), max_answer_bytes=1024 * 1024).instant("q", 0)


def test_long_range_queries_are_paged_and_merged() -> None:
    pages: list[tuple[float, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        form = dict(x.split("=", 1) for x in request.content.decode().split("&"))
        start, end, step = float(form["start"]), float(form["end"]), float(form["step"])
        pages.append((start, end))
        values = [[start + i * step, "1"] for i in range(int((end - start) / step) + 1)]
        return _answer({"resultType": "matrix", "result": [{"metric": {"a": "b"}, "values": values}]})(
            request
        )

    series = _client(handler).range("up", 0, 30 * 25_000, 30)
    assert len(pages) == 3
    assert all((end - start) / 30 < MAX_POINTS_PER_QUERY for start, end in pages)
    assert [t for t, _ in series[0].samples] == [i * 30.0 for i in range(25_001)]


def test_choose_step_is_30s_up_to_a_week_and_coarser_beyond() -> None:
    assert (choose_step(3600), choose_step(7 * 86400), choose_step(30 * 86400)) == (30, 30, 300)


# -- the deadline -------------------------------------------------------------------------------


@pytest.fixture
def slow_server() -> Iterator[str]:
    release = threading.Event()

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            release.wait(30)  # much longer than any deadline below
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    release.set()
    server.shutdown()
    server.server_close()


def test_a_server_slower_than_the_deadline_ends_the_run_with_an_upstream_error(slow_server: str) -> None:
    # The run's clock is injected, so the outcome does not depend on how loaded the machine is:
    # the first request may wait what is left of the deadline (0.5 s) and the server never answers;
    # once the clock has passed the deadline, no further request is sent.
    now = [1000.0]
    client = PromClient(slow_server, timeout_s=60, deadline_s=0.5, clock=lambda: now[0])
    with pytest.raises(PromError, match=r"no answer within 0\.5 s") as info:
        client.instant("up", 0)
    assert info.value.exit_code == EXIT_UPSTREAM
    now[0] += 0.5
    with pytest.raises(PromError, match=r"deadline of 0\.5 s passed after 1 queries"):
        client.instant("up", 0)
    assert client.queries == 1
