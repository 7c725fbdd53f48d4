"""Each session's results file under DIR/sessions/: unique, and named so that sorting the
names gives the order the sessions began (`e2ebench report DIR/sessions/*.json` keeps the
record of the file named last)."""

from pytest_e2ebench.report.terminal import session_file


def test_sessions_in_one_second_sort_in_the_order_they_began(tmp_path):
    made = []
    for _ in range(12):  # well within one second: the same stamp, counted on
        path = session_file(tmp_path)
        path.write_text("{}")
        made.append(path.name)
    stamps = {name[:16] for name in made}
    if len(stamps) == 1:  # a second boundary crossed in between leaves nothing to compare
        assert made[0].endswith("Z.json") and made[1].endswith("Z_002.json")
    assert sorted(made) == made and len(set(made)) == 12
