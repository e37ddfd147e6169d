"""``fcsim.terminal.printable``: what fetch (and any message quoting outside text) prints."""

from hypothesis import given
from hypothesis import strategies as st

from fcsim.terminal import printable


def test_control_characters_are_escaped() -> None:
    assert printable("Re\x1b]0;pwned\x07ad") == "Re\\x1b]0;pwned\\x07ad"
    assert printable("a\r\nb\u202ec\x85") == "a\\r\\nb\\u202ec\\x85"
    assert printable("tab\there") == "tab\\there"


@given(st.text())
def test_the_result_prints_and_escaping_twice_is_escaping_once(text: str) -> None:
    once = printable(text)
    assert once.isprintable() and printable(once) == once
    assert (once == text) == text.isprintable()
