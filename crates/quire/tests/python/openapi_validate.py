"""Validates quire's served OpenAPI document with openapi-spec-validator (PyPI), printing
every error found (not only the first), and exits 1 when there is any.

Usage: openapi_validate.py URL
"""

import json
import sys
import urllib.request

from openapi_spec_validator import OpenAPIV31SpecValidator


def main() -> int:
    url = sys.argv[1]
    with urllib.request.urlopen(url, timeout=60) as answer:
        document = json.load(answer)
    errors = list(OpenAPIV31SpecValidator(document).iter_errors())
    for error in errors:
        print(f"invalid: {error.message}")
    operations = sum(len(item) for item in document["paths"].values())
    print(f"{operations} operations, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
