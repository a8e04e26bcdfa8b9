"""Writers on WebDAV and on S3 at once against one quire server, then every file read back
through the other protocol and over REST (crates/quire/tests/cross_protocol.rs runs this).

Each writer thread writes its own pages; right after each acknowledged write, the same
thread reads the page back through the other protocol and over REST, and it must be there
with the bytes written. Prints "every check passed" at the end.
"""

import argparse
import os
import sys
import threading
import urllib.request

import boto3
from botocore.config import Config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--webdav", required=True)
    parser.add_argument("--s3", required=True)
    parser.add_argument("--rest", required=True)
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--access-key", required=True)
    parser.add_argument("--writers", type=int, default=20)
    parser.add_argument("--pages", type=int, default=10)
    args = parser.parse_args()
    secret = os.environ["S3_TEST_SECRET"]

    def s3_client():
        return boto3.session.Session().client(
            "s3",
            endpoint_url=args.s3,
            aws_access_key_id=args.access_key,
            aws_secret_access_key=secret,
            region_name="us-east-1",
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
        )

    def http(method, url, body=None):
        request = urllib.request.Request(url, data=body, method=method)
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()

    http("MKCOL", f"{args.webdav}/together")
    failures = []
    lock = threading.Lock()

    def fail(message):
        with lock:
            failures.append(message)

    def webdav_writer(n):
        s3 = s3_client()
        for i in range(args.pages):
            path = f"together/dav-{n:02}-{i:02}.md"
            body = f"# WebDAV writer {n}, page {i}\n".encode()
            status, _ = http("PUT", f"{args.webdav}/{path}", body)
            if status not in (201, 204):
                fail(f"PUT {path}: {status}")
                continue
            got = s3.get_object(Bucket=args.bucket, Key=path)["Body"].read()
            if got != body:
                fail(f"{path} over S3: {got!r}")
            _, rest = http("GET", f"{args.rest}/file?path={path}")
            if rest != body:
                fail(f"{path} over REST: {rest!r}")

    def s3_writer(n):
        s3 = s3_client()
        for i in range(args.pages):
            path = f"together/s3-{n:02}-{i:02}.md"
            body = f"# S3 writer {n}, page {i}\n".encode()
            s3.put_object(Bucket=args.bucket, Key=path, Body=body)
            _, dav = http("GET", f"{args.webdav}/{path}")
            if dav != body:
                fail(f"{path} over WebDAV: {dav!r}")
            _, rest = http("GET", f"{args.rest}/file?path={path}")
            if rest != body:
                fail(f"{path} over REST: {rest!r}")

    def guarded(target, n):
        try:
            target(n)
        except Exception as e:  # a transport error or an error answer fails the run
            fail(f"{target.__name__} {n}: {e!r}")

    threads = [
        threading.Thread(target=guarded, args=(writer, n))
        for n in range(args.writers)
        for writer in (webdav_writer, s3_writer)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # The folder through each protocol: every page, once.
    listed = set()
    for page in s3_client().get_paginator("list_objects_v2").paginate(
        Bucket=args.bucket, Prefix="together/"
    ):
        listed.update(o["Key"] for o in page.get("Contents", []))
    expected = args.writers * args.pages * 2
    if len(listed) != expected:
        fail(f"S3 lists {len(listed)} pages, {expected} written")
    if failures:
        print("\n".join(failures[:20]))
        sys.exit(1)
    print(f"{expected} pages written by {args.writers * 2} writers; every check passed")


if __name__ == "__main__":
    main()
