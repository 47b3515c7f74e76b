"""endpoint.rules: Bedrock's request rules, checked offline with Bedrock's own error texts: the message shape
(``shape``), thinking and reasoning blocks (``thinking``), prompt-cache placement, structured output and a toolless
turn's tool choice (``caching``), the whole Converse request (``converse``), and which
model families each rule's evidence covers (``scope``: a problem outside them is a warning). Pure functions over
request dicts: they import nothing of the harness outside this room.
"""

__all__: list[str] = []
