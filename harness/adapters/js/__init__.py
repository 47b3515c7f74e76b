"""js: the JavaScript shims (Node programs speaking the subprocess protocol, shipped as package data beside this
file), the npm installs they run on (``npm``: one cache folder per library release, a Node new enough found or
fetched), and their adapter factories (``ai_sdk``). It may import the adapters room around it (the registry's
errors, the subprocess adapter) and what that room may import; nothing imports it but the registry's entry points.
"""

__all__: list[str] = []
