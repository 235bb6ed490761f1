"""The byte level: GPT-2's printable form of the 256 byte values, and text as UTF-8 bytes.

At the character level (``bpe.py``'s lesson) the base tokens are the
characters of the training text, and an unseen character is ``<unk>``. At the
byte level they are the 256 byte values of UTF-8, so no text is ever unknown.
Many bytes (space, newline, the parts of a multi-byte character) do not
print, so GPT-2 shows each byte as one printable character: the printable
Latin-1 bytes stand for themselves and the other 68 take the characters from
U+0100 on, in byte order, so a space shows as "Ġ" and a newline as "Ċ".
Tokens are shown, stored and merged in that form; the bytes come back with
``display_to_bytes``.
"""

import re


def _byte_display_table():
    """GPT-2's table: the printable character that shows each byte value."""
    printable = set(range(ord("!"), ord("~") + 1)) | set(range(0xA1, 0xAC + 1)) | set(range(0xAE, 0xFF + 1))
    table = []
    borrowed = 0
    for byte in range(256):
        if byte in printable:
            table.append(chr(byte))
        else:
            table.append(chr(0x100 + borrowed))
            borrowed += 1
    return table


BYTE_TO_CHAR = _byte_display_table()


CHAR_TO_BYTE = {char: byte for byte, char in enumerate(BYTE_TO_CHAR)}


def bytes_to_display(data: bytes) -> str:
    """Bytes as their GPT-2 display characters.

    >>> bytes_to_display(" café".encode())
    'ĠcafÃ©'
    """
    return "".join([BYTE_TO_CHAR[byte] for byte in data])


def display_to_bytes(text: str) -> bytes:
    """The bytes a display string stands for: ``"Ġhi"`` -> ``b" hi"``."""
    return bytes([CHAR_TO_BYTE[char] for char in text])


SINGLE_BYTES = [bytes([byte]) for byte in range(256)]
"""Each byte value as a one-byte ``bytes`` object, made once."""


def character_spans_of_bytes(text, byte_level=True):
    """For each UTF-8 byte of ``text``: the span of characters it belongs to (positions in ``text``).

    At the byte level (as it encodes text) a surrogate pair is one character
    of two positions and a lone surrogate stands for the three bytes of
    U+FFFD; at the character level every surrogate is a character of its
    own, of the three bytes ``surrogatepass`` gives it.
    """
    if text.isascii():
        return range(len(text)), range(1, len(text) + 1)
    starts, ends = [], []
    position = 0
    while position < len(text):
        char = text[position]
        width = 1
        if byte_level and "\ud800" <= char <= "\udbff" and "\udc00" <= text[position + 1:position + 2] <= "\udfff":
            size, width = 4, 2
        elif "\ud800" <= char <= "\udfff":
            size = 3
        else:
            size = len(char.encode("utf-8"))
        starts += [position] * size
        ends += [position + width] * size
        position += width
    return starts, ends


SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """Replace lone surrogates (which UTF-8 cannot encode) with U+FFFD, as tiktoken does.

    A high and a low surrogate that stand next to each other are read as the
    one character they encode in UTF-16; any other surrogate becomes U+FFFD.
    """
    if text.isascii() or not SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
