"""JSON Schema of Karenina's VerificationResult, for src/exports/karenina-result.schema.json.

Usage (see src/exports/README.md for the exact command and the Karenina commit):
    python3 scripts/karenina-result-schema.py KARENINA_SRC_DIR > src/exports/karenina-result.schema.json

Only the result models' own modules are loaded (karenina.schemas.verification.result and what it
imports); the package __init__ files, which pull in langchain and the rest of Karenina's
dependencies, are replaced by empty namespace modules. Needs python3 with pydantic 2.

mode="serialization": an export is Karenina's serialised form (model_dump), which carries the
computed `failure.group`; in validation mode Failure drops an incoming `group` in a before-validator
that JSON Schema cannot express, so the validation-mode schema would refuse Karenina's own exports.
"""
import json
import sys
import types

src = sys.argv[1]
for name in ["karenina", "karenina.schemas", "karenina.schemas.results", "karenina.schemas.verification"]:
    module = types.ModuleType(name)
    module.__path__ = [f"{src}/{name.replace('.', '/')}"]
    sys.modules[name] = module

from karenina.schemas.verification.result import VerificationResult  # noqa: E402

print(json.dumps(VerificationResult.model_json_schema(mode="serialization"), indent=2))
