"""wire: the AWS event-stream codec (frames, headers, CRCs, padding) and ConverseStream's event grammar (which
event may follow which), and how a value of the wrong type is named in a one-line error (``kinds``). The lowest
room: it imports nothing of the harness, and every other room may import it.
"""

__all__: list[str] = []
