"""pytest plugin for bedrock-harness (entry point ``pytest11``)."""
