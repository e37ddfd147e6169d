"""Text from outside fcsim (a server's reply, a file's contents) made safe to print."""


def printable(text: str) -> str:
    """``text`` with every character that does not print (control characters such as ESC, BEL,
    CR and line breaks; format characters such as bidirectional overrides; separators other
    than the space) written as its Python escape (``\\x1b``, ``\\n``, ``\\u202e``): the result
    is one line that cannot move the cursor, retitle or clear the terminal, or fake a line of
    output. Printable text (backslashes included) is returned unchanged, so applying it twice
    gives what applying it once does."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
