"""Files a person attaches to a message: ``@path`` in the composer, ``ask --attach FILE``.

Why a package of its own: attaching crosses layers (the workspace guards of the file
tools, the approval queue, a transcription server, the request a provider receives), and
keeping every rule here lets the engine and the agent loop call it in one line each.

The flow: :mod:`.mentions` finds ``@path`` in the text; :mod:`.attach` reads each file
under the file tools' guards when the message is sent and stores a reference on the
user's message (``attachments``, see :mod:`.refs`); :mod:`.request` turns those
references into what the model receives, on every request: text and transcripts as
fenced blocks, images as ``image_url`` parts re-read (and hash-checked) from disk.
"""

from tuibot.attachments.refs import AttachmentError, AttachmentRef

__all__ = ["AttachmentError", "AttachmentRef"]
