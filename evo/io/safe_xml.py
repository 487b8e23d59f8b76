"""Reading an XML file without ever resolving an entity.

A document that declares any entity is refused (expat scans it first, in its own encoding), and a DOCTYPE
is blanked out before the parser sees the text, so no external DTD is fetched.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from xml.parsers import expat

from evo.errors import EvoInputError
from evo.io.bounded import read_input_bytes

__all__ = ["parse_xml_file"]


class _EntityDeclared(Exception):
    pass


def _refuse_entities(data: bytes, source: str) -> None:
    """Refuse a document that declares an entity, in whatever encoding it is written.

    expat itself reads the bytes (UTF-16 included, where a byte search for ``<!ENTITY`` finds nothing)
    and stops at the first declaration, before any entity could be expanded. A document expat cannot
    read is left to the parse proper, which reports it.
    """
    scanner = expat.ParserCreate()

    def declared(*_: object) -> None:
        raise _EntityDeclared

    scanner.EntityDeclHandler = declared
    try:
        scanner.Parse(data, True)
    except _EntityDeclared:
        raise EvoInputError(
            "entity declarations are not allowed (the DOCTYPE is ignored)", source=source
        ) from None
    except (expat.ExpatError, ValueError, LookupError):
        pass


def _strip_doctype(data: bytes, source: str) -> bytes:
    """Blank out every DOCTYPE (keeping line numbers) of an ASCII-compatible document."""
    start = data.find(b"<!DOCTYPE")
    while start >= 0:
        depth, quote, end = 0, 0, -1
        for k in range(start + 9, len(data)):
            c = data[k]
            if quote:
                quote = 0 if c == quote else quote
            elif c in b"\"'":
                quote = c
            elif c == ord("["):
                depth += 1
            elif c == ord("]"):
                depth -= 1
            elif c == ord(">") and depth == 0:
                end = k + 1
                break
        if end < 0:
            raise EvoInputError("not well-formed XML: unterminated DOCTYPE", source=source)
        blank = bytes(b if b in b"\r\n" else 32 for b in data[start:end])
        data = data[:start] + blank + data[end:]
        start = data.find(b"<!DOCTYPE", end)
    return data


def parse_xml_file(path: Path, source: str) -> ET.Element:
    """The root element of the XML file ``path`` (a regular file of bounded size, see
    :mod:`evo.io.bounded`); errors are one-line :class:`EvoInputError` s naming ``source``."""
    return parse_xml_bytes(read_input_bytes(path, source=source), source)


def parse_xml_bytes(data: bytes, source: str) -> ET.Element:
    """The root element of the XML document ``data`` (entities refused, DOCTYPE skipped); errors are
    one-line :class:`EvoInputError` s naming ``source``."""
    _refuse_entities(data, source)
    parser = ET.XMLParser()
    try:
        parser.feed(_strip_doctype(data, source))
        return parser.close()
    except ET.ParseError as exc:
        raise EvoInputError(f"not well-formed XML: {exc}", source=source) from None
    except (ValueError, LookupError) as exc:  # an encoding expat cannot read ("Shift_JIS", "bogus")
        raise EvoInputError(f"not readable XML: {exc}", source=source) from None
