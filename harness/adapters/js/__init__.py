"""js: the JavaScript shims (Node programs speaking the subprocess protocol, shipped as package data beside this
file), the npm installs they run on (``npm``: one cache folder per library release, a Node new enough found or
fetched), their adapter factories (``ai_sdk``), and ``releases`` (a shim's npm releases for ``matrix`` and ``bisect``).
It may import the adapters room around it (the registry, the subprocess adapter) and what that room may import;
nothing imports it but the registry's entry points and the CLI's ``matrix``/``bisect``.
"""

__all__: list[str] = []
