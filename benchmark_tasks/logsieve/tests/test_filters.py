"""filter_entries: time window, status class, methods and path prefix."""

from datetime import datetime, timedelta, timezone

import pytest

from logsieve import filter_entries, parse_line, parse_lines

UTC = timezone.utc


@pytest.fixture
def entries(sample_lines):
    return parse_lines(sample_lines).entries


def _paths(entries):
    return [e.path for e in entries]


# --- R8: Time window filter --------------------------------------------------------------

@pytest.mark.requirement("R8")
def test_start_inclusive_end_exclusive(entries):
    # UTC instants: 09:15:02, 09:40:10, 09:05:00, 10:20:30, 10:59:59, 11:00:00
    start = datetime(2024, 3, 12, 9, 40, 10, tzinfo=UTC)
    end = datetime(2024, 3, 12, 11, 0, 0, tzinfo=UTC)
    result = filter_entries(entries, start=start, end=end)
    assert [e.time.astimezone(UTC).strftime("%H:%M:%S") for e in result] == [
        "09:40:10", "10:20:30", "10:59:59"]


@pytest.mark.requirement("R8")
def test_bounds_compare_instants_across_offsets(entries):
    # 10:05:00 +0100 is 09:05 UTC; 04:10 -0500 is 09:10 UTC
    end = datetime(2024, 3, 12, 4, 10, tzinfo=timezone(timedelta(hours=-5)))
    assert [e.status for e in filter_entries(entries, end=end)] == [201]
    start = datetime(2024, 3, 12, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert _paths(filter_entries(entries, start=start)) == [
        "/missing", "/api/items", "/api/items/7"]


@pytest.mark.requirement("R8")
def test_only_one_bound(entries):
    start = datetime(2024, 3, 12, 10, 59, 59, tzinfo=UTC)
    assert [e.status for e in filter_entries(entries, start=start)] == [500, 204]
    end = datetime(2024, 3, 12, 9, 15, 2, tzinfo=UTC)
    assert [e.status for e in filter_entries(entries, end=end)] == [201]


@pytest.mark.requirement("R8")
@pytest.mark.parametrize("bound", ["start", "end"])
def test_naive_bound_raises_even_without_entries(bound):
    with pytest.raises(ValueError):
        filter_entries([], **{bound: datetime(2024, 3, 12, 10, 0)})


@pytest.mark.requirement("R8")
def test_no_criteria_returns_new_list_in_order(entries):
    result = filter_entries(entries)
    assert result == entries
    assert result is not entries
    assert isinstance(result, list)


@pytest.mark.requirement("R8")
def test_accepts_generator(entries):
    start = datetime(2024, 3, 12, 10, 0, tzinfo=UTC)
    result = filter_entries((e for e in entries), start=start)
    assert len(result) == 3


# --- R9: Status, method and path filters -------------------------------------------------

@pytest.mark.requirement("R9")
@pytest.mark.parametrize("value", [2, "2xx", "2XX", "2"])
def test_status_class_forms(entries, value):
    assert [e.status for e in filter_entries(entries, status_class=value)] == [200, 200, 201, 204]


@pytest.mark.requirement("R9")
@pytest.mark.parametrize("value, expected", [(4, [404]), ("5xx", [500]), ("3xx", [])])
def test_status_class_selection(entries, value, expected):
    assert [e.status for e in filter_entries(entries, status_class=value)] == expected


@pytest.mark.requirement("R9")
@pytest.mark.parametrize("value", [0, 6, "4xy", "404", "", "x"])
def test_invalid_status_class_raises(value):
    with pytest.raises(ValueError):
        filter_entries([], status_class=value)


@pytest.mark.requirement("R9")
def test_methods_case_insensitive(entries):
    result = filter_entries(entries, methods=["post", "Delete"])
    assert [e.method for e in result] == ["POST", "DELETE"]


@pytest.mark.requirement("R9")
def test_single_method_string(entries):
    assert [e.status for e in filter_entries(entries, methods="delete")] == [204]


@pytest.mark.requirement("R9")
def test_methods_empty_collection_and_none_method(make_line):
    entries = [parse_line(make_line(request="-")), parse_line(make_line(request="GET /x"))]
    assert filter_entries(entries, methods=[]) == []
    assert [e.path for e in filter_entries(entries, methods=["GET"])] == ["/x"]


@pytest.mark.requirement("R9")
def test_path_prefix_case_sensitive_and_none_paths(entries, make_line):
    extra = parse_line(make_line(request="-"))
    result = filter_entries(entries + [extra], path_prefix="/api/")
    assert _paths(result) == ["/api/items", "/api/items", "/api/items", "/api/items/7"]
    assert filter_entries(entries, path_prefix="/API") == []


@pytest.mark.requirement("R9")
def test_criteria_are_combined(entries):
    start = datetime(2024, 3, 12, 9, 30, tzinfo=UTC)
    result = filter_entries(entries, start=start, status_class="2xx", methods=["GET", "DELETE"],
                            path_prefix="/api")
    assert [(e.method, e.path, e.status) for e in result] == [
        ("GET", "/api/items", 200), ("DELETE", "/api/items/7", 204)]
