"""Reading the multipart form of an ``/audio/transcriptions`` request, for the scripted server.

The ``openai`` SDK sends the audio file and the fields (``model``, ``language``) as
``multipart/form-data``; a test checks what arrived (the file's name, type, bytes) and the
server answers with the transcript the test queued. Parsed with the standard library's
email parser, which reads MIME multipart bodies.
"""

from __future__ import annotations

import hashlib
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any


def parse_form(content_type: str, body: bytes) -> dict[str, Any]:
    """The form's fields by name; a file field as ``{"filename", "type", "size", "sha256"}``."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    if not message.is_multipart():
        raise ValueError("not a multipart form")
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is None:
            fields[str(name)] = data.decode("utf-8")
        else:
            fields[str(name)] = {
                "filename": filename,
                "type": part.get_content_type(),
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
    return fields
