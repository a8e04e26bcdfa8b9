"""The S3 API of a running `quire serve` driven by real clients: boto3 and the aws CLI.

Run by crates/quire/tests/s3.rs, which starts the server, then checks the git history the
writes made. Modes:

* `full`: every bucket operation the server supports, with both clients, as a writing key;
* `readonly`: a read-scoped key reads and is refused every write;
* `wrong`: a wrong secret and an unknown key are refused;
* `keys-write`, `keys-read`: several keys (`S3_TEST_KEYS`), each with its own scope and bucket;
* `slowdown`: a key over `[server.rate_limit]` gets 429 SlowDown;
* `audited`: a write and refusals for the audit log.

Prints "every check passed" at the end; any failed check raises.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def blob_id(data: bytes) -> str:
    """The git blob id of `data`: the ETag quire gives a file."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def client(args, secret=None, key=None, **config):
    return boto3.client(
        "s3",
        endpoint_url=args.endpoint,
        aws_access_key_id=key or args.access_key,
        aws_secret_access_key=secret or args.secret_key,
        region_name=args.region,
        config=Config(
            s3={"addressing_style": "path"},
            retries={"max_attempts": 1},
            **config,
        ),
    )


def code_of(call):
    """The error code and HTTP status of a call expected to fail."""
    try:
        call()
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    raise AssertionError("the call succeeded but should have failed")


def rest(args, path):
    with urllib.request.urlopen(args.rest + path) as answer:
        return answer.read()


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"{name}: {detail}")
    print(f"ok: {name}")


class Cli:
    """The aws CLI with its own configuration files and this server's endpoint."""

    def __init__(self, args, tmp):
        self.args = args
        config = os.path.join(tmp, "aws-config")
        with open(config, "w") as f:
            f.write(f"[default]\nregion = {args.region}\ns3 =\n  addressing_style = path\n")
        self.env = dict(os.environ)
        self.env.update(
            {
                "AWS_CONFIG_FILE": config,
                "AWS_SHARED_CREDENTIALS_FILE": os.path.join(tmp, "aws-credentials"),
                "AWS_ACCESS_KEY_ID": args.access_key,
                "AWS_SECRET_ACCESS_KEY": args.secret_key,
                "AWS_DEFAULT_REGION": args.region,
                "AWS_EC2_METADATA_DISABLED": "true",
            }
        )

    def run(self, *argv, ok=True):
        done = subprocess.run(
            ["aws", "--endpoint-url", self.args.endpoint, *argv],
            env=self.env,
            capture_output=True,
            timeout=300,
        )
        if ok and done.returncode != 0:
            raise AssertionError(
                f"aws {' '.join(argv)} failed ({done.returncode}):\n"
                f"{done.stdout.decode()}\n{done.stderr.decode()}"
            )
        return done


def full(args):
    s3 = client(args)
    bucket, other = args.bucket, args.other_bucket

    # Buckets: every space.
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    check("ListBuckets names every space", bucket in names and other in names, names)
    s3.head_bucket(Bucket=bucket)
    check(
        "HeadBucket of no space is 404",
        code_of(lambda: s3.head_bucket(Bucket="no-such-space"))[1] == 404,
    )
    location = s3.get_bucket_location(Bucket=bucket).get("LocationConstraint")
    expected = None if args.region == "us-east-1" else args.region
    check("GetBucketLocation is the configured region", location == expected, location)

    # PUT, HEAD, GET and listings agree on the ETag: the git blob id, quoted.
    text = b"---\ntitle: From S3\n---\n# From S3\n\nSee [[alpha]].\n"
    put = s3.put_object(Bucket=bucket, Key="notes/s3.md", Body=text)
    etag = '"%s"' % blob_id(text)
    check("PutObject answers the blob id as ETag", put["ETag"] == etag, put["ETag"])
    head = s3.head_object(Bucket=bucket, Key="notes/s3.md")
    check("HeadObject has the same ETag", head["ETag"] == etag, head["ETag"])
    check("HeadObject has the length", head["ContentLength"] == len(text))
    check("Content-Type from the extension", head["ContentType"].startswith("text/markdown"), head["ContentType"])
    got = s3.get_object(Bucket=bucket, Key="notes/s3.md")
    check("GetObject returns the bytes", got["Body"].read() == text)
    check("GetObject has the same ETag", got["ETag"] == etag, got["ETag"])
    listed = s3.list_objects_v2(Bucket=bucket, Prefix="notes/s3")["Contents"]
    check("the listing has the same ETag", [o["ETag"] for o in listed] == [etag], listed)
    check("a file PUT over S3 is readable over REST at once", rest(args, "/file?path=notes/s3.md") == text)
    # The same bytes again: no change, the same ETag.
    again = s3.put_object(Bucket=bucket, Key="notes/s3.md", Body=text)
    check("an unchanged PutObject keeps the ETag", again["ETag"] == etag, again["ETag"])

    # Flexible checksums: an explicit CRC32 (sent in an aws-chunked trailer over a streamed
    # body), SHA256, and a client that sends none.
    for algorithm in ["CRC32", "SHA256", "SHA1"]:  # CRC32C and CRC64NVME need awscrt
        body = f"# checksum {algorithm}\n".encode()
        put = s3.put_object(
            Bucket=bucket, Key=f"sums/{algorithm}.md", Body=body, ChecksumAlgorithm=algorithm
        )
        check(f"PutObject with a {algorithm} checksum", put["ETag"] == '"%s"' % blob_id(body), put)
    streamed = tempfile.TemporaryFile()
    streamed.write(b"streamed body\n" * 1000)
    streamed.seek(0)
    s3.upload_fileobj(streamed, bucket, "sums/streamed.txt")
    check(
        "upload_fileobj (aws-chunked, trailing checksum) lands whole",
        s3.get_object(Bucket=bucket, Key="sums/streamed.txt")["Body"].read() == b"streamed body\n" * 1000,
    )
    plain = client(args, request_checksum_calculation="when_required")
    plain.put_object(Bucket=bucket, Key="sums/plain.md", Body=b"# plain\n")
    check("PutObject without checksum", plain.get_object(Bucket=bucket, Key="sums/plain.md")["Body"].read() == b"# plain\n")
    check(
        "a wrong Content-MD5 is BadDigest",
        code_of(
            lambda: plain.put_object(
                Bucket=bucket, Key="sums/bad.md", Body=b"x", ContentMD5="AAAAAAAAAAAAAAAAAAAAAA=="
            )
        )[0]
        == "BadDigest",
    )

    # Listing: prefix, delimiter, common prefixes, pages in byte order.
    for key in ["list/a.md", "list/b/c.md", "list/b/d.md", "list/e.md", "list-x.md", "list/b-z.md"]:
        s3.put_object(Bucket=bucket, Key=key, Body=f"# {key}\n".encode())
    answer = s3.list_objects_v2(Bucket=bucket, Prefix="list/", Delimiter="/")
    keys = [o["Key"] for o in answer.get("Contents", [])]
    prefixes = [p["Prefix"] for p in answer.get("CommonPrefixes", [])]
    check("delimiter: the files of the folder", keys == ["list/a.md", "list/b-z.md", "list/e.md"], keys)
    check("delimiter: its folders as common prefixes", prefixes == ["list/b/"], prefixes)
    answer = s3.list_objects_v2(Bucket=bucket, Prefix="list")
    keys = [o["Key"] for o in answer["Contents"]]
    check(
        "no delimiter: every key under the prefix, in byte order",
        keys == ["list-x.md", "list/a.md", "list/b-z.md", "list/b/c.md", "list/b/d.md", "list/e.md"],
        keys,
    )
    page_keys = sorted([f"page/{i:02}.md" for i in range(7)] + ["page/a b+c.md", "page/é.md"])
    for key in page_keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"# page\n")
    pages = list(s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="page/", PaginationConfig={"PageSize": 3}))
    seen = [o["Key"] for p in pages for o in p.get("Contents", [])]
    check("continuation tokens page through every key once", seen == sorted(page_keys, key=lambda k: k.encode()), seen)
    check("pages of three", [p["KeyCount"] for p in pages] == [3, 3, 3], [p["KeyCount"] for p in pages])
    v1 = list(s3.get_paginator("list_objects").paginate(Bucket=bucket, Prefix="page/", PaginationConfig={"PageSize": 4}))
    seen = [o["Key"] for p in v1 for o in p.get("Contents", [])]
    check("ListObjects (v1) with markers", seen == sorted(page_keys, key=lambda k: k.encode()), seen)
    after = s3.list_objects_v2(Bucket=bucket, Prefix="page/", StartAfter="page/05.md")
    check("StartAfter", [o["Key"] for o in after["Contents"]][0] == "page/06.md", after["Contents"])

    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "notes/s3.md"}, ExpiresIn=300)
    with urllib.request.urlopen(url) as answer:
        check("a presigned GET", answer.read() == text)

    # Ranges and conditions.
    ranged = s3.get_object(Bucket=bucket, Key="notes/s3.md", Range="bytes=4-9")
    check("a ranged GET", ranged["Body"].read() == text[4:10] and ranged["ResponseMetadata"]["HTTPStatusCode"] == 206)
    check(
        "an unsatisfiable range is 416",
        code_of(lambda: s3.get_object(Bucket=bucket, Key="notes/s3.md", Range="bytes=9999-"))[1] == 416,
    )
    check(
        "If-None-Match with the ETag is 304",
        code_of(lambda: s3.get_object(Bucket=bucket, Key="notes/s3.md", IfNoneMatch=etag))[1] == 304,
    )
    check(
        "If-Match with another ETag is 412",
        code_of(lambda: s3.get_object(Bucket=bucket, Key="notes/s3.md", IfMatch='"0000"'))[1] == 412,
    )
    check("If-Match with the ETag reads", s3.get_object(Bucket=bucket, Key="notes/s3.md", IfMatch=etag)["ETag"] == etag)
    modified = head["LastModified"]
    check(
        "If-Modified-Since its own time is 304 on HEAD",
        code_of(lambda: s3.head_object(Bucket=bucket, Key="notes/s3.md", IfModifiedSince=modified))[1] == 304,
    )
    check(
        "If-None-Match: * on an existing key refuses the PUT",
        code_of(lambda: s3.put_object(Bucket=bucket, Key="notes/s3.md", Body=b"x", IfNoneMatch="*"))[1] == 412,
    )
    s3.put_object(Bucket=bucket, Key="notes/new-once.md", Body=b"# once\n", IfNoneMatch="*")
    check("If-None-Match: * creates a new key", s3.head_object(Bucket=bucket, Key="notes/new-once.md")["ContentLength"] == 7)
    check(
        "a missing key is NoSuchKey",
        code_of(lambda: s3.get_object(Bucket=bucket, Key="notes/none.md")) == ("NoSuchKey", 404),
    )
    check(
        "the server's own files are not objects",
        code_of(lambda: s3.get_object(Bucket=bucket, Key=".quire/config.toml"))[1] == 404,
    )
    check(
        "nor can they be written",
        code_of(lambda: s3.put_object(Bucket=bucket, Key=".quire/config.toml", Body=b"x"))[1] == 403,
    )

    # Multipart: a 12 MB asset in 5 MB parts with boto3, ETag the whole file's blob id.
    asset = os.urandom(12 * 1024 * 1024)
    path = os.path.join(args.tmp, "asset.bin")
    with open(path, "wb") as f:
        f.write(asset)
    from boto3.s3.transfer import TransferConfig

    s3.upload_file(
        path, bucket, "assets/big.bin",
        Config=TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024),
    )
    head = s3.head_object(Bucket=bucket, Key="assets/big.bin")
    check("a 12 MB multipart upload: its ETag is the file's blob id", head["ETag"] == '"%s"' % blob_id(asset), head["ETag"])
    check("and it reads back whole", s3.get_object(Bucket=bucket, Key="assets/big.bin")["Body"].read() == asset)
    with open(os.path.join(args.root, "assets/big.bin"), "rb") as f:
        check("and it is the file on disk", f.read() == asset)
    # The low-level calls: ListParts, a wrong ETag, abort.
    upload = s3.create_multipart_upload(Bucket=bucket, Key="assets/parts.bin")["UploadId"]
    part = s3.upload_part(Bucket=bucket, Key="assets/parts.bin", UploadId=upload, PartNumber=1, Body=b"a" * 100)
    parts = s3.list_parts(Bucket=bucket, Key="assets/parts.bin", UploadId=upload)["Parts"]
    check("ListParts", [(p["PartNumber"], p["ETag"], p["Size"]) for p in parts] == [(1, part["ETag"], 100)], parts)
    uploads = s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    check("ListMultipartUploads", [u["UploadId"] for u in uploads] == [upload], uploads)
    check(
        "completing with a wrong part ETag is InvalidPart",
        code_of(
            lambda: s3.complete_multipart_upload(
                Bucket=bucket, Key="assets/parts.bin", UploadId=upload,
                MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": '"nope"'}]},
            )
        )[0]
        == "InvalidPart",
    )
    s3.abort_multipart_upload(Bucket=bucket, Key="assets/parts.bin", UploadId=upload)
    check(
        "an aborted upload is gone",
        code_of(lambda: s3.list_parts(Bucket=bucket, Key="assets/parts.bin", UploadId=upload))[0] == "NoSuchUpload",
    )

    # Copy then delete: a raw move `via: s3`, listed with the relinks manifest.
    copied = s3.copy_object(Bucket=bucket, Key="notes/moved.md", CopySource={"Bucket": bucket, "Key": "notes/s3.md"})
    check("CopyObject answers the blob id", copied["CopyObjectResult"]["ETag"] == etag, copied)
    s3.delete_object(Bucket=bucket, Key="notes/s3.md")
    moves = json.loads(rest(args, "/refactor/raw-moves"))
    moves = moves.get("moves", moves) if isinstance(moves, dict) else moves
    found = [m for m in moves if m["from"] == "notes/s3.md" and m["to"] == "notes/moved.md"]
    check("copy + delete is a raw move via s3", found and found[0]["via"] == "s3", moves)

    # DeleteObjects in one call; a folder marker creates the folder.
    deleted = s3.delete_objects(
        Bucket=bucket, Delete={"Objects": [{"Key": "list/a.md"}, {"Key": "list/e.md"}, {"Key": "list/none.md"}]}
    )
    check("DeleteObjects", sorted(d["Key"] for d in deleted["Deleted"]) == ["list/a.md", "list/e.md", "list/none.md"], deleted)
    check("the deleted files are gone", not os.path.exists(os.path.join(args.root, "list/a.md")))
    s3.put_object(Bucket=bucket, Key="folder/sub/", Body=b"")
    check("a key ending in / with no body makes the folder", os.path.isdir(os.path.join(args.root, "folder/sub")))
    prefixes = [p["Prefix"] for p in s3.list_objects_v2(Bucket=bucket, Delimiter="/").get("CommonPrefixes", [])]
    check("the folder is listed as a common prefix", "folder/" in prefixes, prefixes)
    check("HEAD of the folder key", s3.head_object(Bucket=bucket, Key="folder/sub/")["ContentLength"] == 0)

    # Another space is another bucket.
    s3.put_object(Bucket=other, Key="beta.md", Body=b"# Beta\n")
    with open(os.path.join(args.other_root, "beta.md"), "rb") as f:
        check("a write to another bucket lands in that space", f.read() == b"# Beta\n")
    s3.copy_object(Bucket=other, Key="from-alpha.md", CopySource={"Bucket": bucket, "Key": "notes/moved.md"})
    check("CopyObject across spaces", s3.get_object(Bucket=other, Key="from-alpha.md")["Body"].read() == text)

    # What is not supported says so.
    check(
        "versioning is NotImplemented",
        code_of(lambda: s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"}))[0]
        == "NotImplemented",
    )
    check(
        "tagging is NotImplemented",
        code_of(lambda: s3.put_object_tagging(Bucket=bucket, Key="notes/moved.md", Tagging={"TagSet": []}))[0]
        == "NotImplemented",
    )

    # The aws CLI: cp (a 12 MB file: multipart in 8 MB parts), ls, sync, mv, rm, s3api.
    cli = Cli(args, args.tmp)
    big = os.path.join(args.tmp, "cli-asset.bin")
    with open(big, "wb") as f:
        f.write(asset[::-1])
    cli.run("s3", "cp", big, f"s3://{bucket}/assets/cli.bin")
    head = json.loads(cli.run("s3api", "head-object", "--bucket", bucket, "--key", "assets/cli.bin").stdout)
    check("aws s3 cp of 12 MB: the blob id as ETag", head["ETag"] == '"%s"' % blob_id(asset[::-1]), head)
    back = os.path.join(args.tmp, "cli-back.bin")
    cli.run("s3", "cp", f"s3://{bucket}/assets/cli.bin", back)
    with open(back, "rb") as f:
        check("aws s3 cp reads it back", f.read() == asset[::-1])
    tree = os.path.join(args.tmp, "tree")
    os.makedirs(os.path.join(tree, "sub"))
    for name in ["one.md", "two.md", "sub/three.md"]:
        with open(os.path.join(tree, name), "w") as f:
            f.write(f"# {name}\n")
    cli.run("s3", "sync", tree, f"s3://{bucket}/synced/")
    listing = cli.run("s3", "ls", "--recursive", f"s3://{bucket}/synced/").stdout.decode()
    check("aws s3 sync then ls", all(k in listing for k in ["synced/one.md", "synced/two.md", "synced/sub/three.md"]), listing)
    again = cli.run("s3", "sync", tree, f"s3://{bucket}/synced/").stdout.decode()
    check("a second sync copies nothing", again.strip() == "", again)
    cli.run("s3", "mv", f"s3://{bucket}/synced/one.md", f"s3://{bucket}/synced/uno.md")
    moves = json.loads(rest(args, "/refactor/raw-moves"))
    moves = moves.get("moves", moves) if isinstance(moves, dict) else moves
    check(
        "aws s3 mv is a raw move via s3",
        any(m["from"] == "synced/one.md" and m["to"] == "synced/uno.md" and m["via"] == "s3" for m in moves),
        moves,
    )
    top = cli.run("s3", "ls", f"s3://{bucket}/").stdout.decode()
    check("aws s3 ls shows folders as PRE", "PRE synced/" in top and "PRE notes/" in top, top)
    cli.run("s3", "rm", "--recursive", f"s3://{bucket}/synced/")
    check("aws s3 rm --recursive", not os.path.exists(os.path.join(args.root, "synced/two.md")))
    buckets = cli.run("s3", "ls").stdout.decode()
    check("aws s3 ls lists the spaces", bucket in buckets and other in buckets, buckets)

    print("every check passed")


def readonly(args):
    s3 = client(args)
    bucket = args.bucket
    check("a read key lists", "Contents" in s3.list_objects_v2(Bucket=bucket))
    check("a read key reads", s3.get_object(Bucket=bucket, Key="notes/alpha.md")["Body"].read().startswith(b"# Alpha"))
    for name, call in [
        ("PutObject", lambda: s3.put_object(Bucket=bucket, Key="notes/x.md", Body=b"x")),
        ("DeleteObject", lambda: s3.delete_object(Bucket=bucket, Key="notes/alpha.md")),
        ("CopyObject", lambda: s3.copy_object(Bucket=bucket, Key="notes/c.md", CopySource=f"{bucket}/notes/alpha.md")),
        ("CreateMultipartUpload", lambda: s3.create_multipart_upload(Bucket=bucket, Key="notes/m.md")),
        ("DeleteObjects", lambda: s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "notes/alpha.md"}]})),
    ]:
        check(f"a read key is refused {name}", code_of(call) == ("AccessDenied", 403))
    cli = Cli(args, args.tmp)
    path = os.path.join(args.tmp, "x.md")
    with open(path, "w") as f:
        f.write("# x\n")
    done = cli.run("s3", "cp", path, f"s3://{bucket}/notes/x.md", ok=False)
    check("aws s3 cp with a read key fails", done.returncode != 0 and b"AccessDenied" in done.stderr, done.stderr)
    print("every check passed")


def wrong(args):
    bad = client(args, secret="not-the-secret")
    check(
        "a wrong secret is SignatureDoesNotMatch",
        code_of(lambda: bad.list_objects_v2(Bucket=args.bucket)) == ("SignatureDoesNotMatch", 403),
    )
    check(
        "nor may it write",
        code_of(lambda: bad.put_object(Bucket=args.bucket, Key="notes/w.md", Body=b"x"))[1] == 403,
    )
    unknown = client(args, key="AKIDUNKNOWN")
    check(
        "an unknown key is InvalidAccessKeyId",
        code_of(lambda: unknown.list_buckets()) == ("InvalidAccessKeyId", 403),
    )
    other_region = boto3.client(
        "s3", endpoint_url=args.endpoint, aws_access_key_id=args.access_key,
        aws_secret_access_key=args.secret_key, region_name="ap-south-1",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )
    check(
        "a request signed for another region is refused",
        code_of(lambda: other_region.list_objects_v2(Bucket=args.bucket))[1] == 400,
    )
    cli = Cli(args, args.tmp)
    cli.env["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
    done = cli.run("s3", "ls", f"s3://{args.bucket}/", ok=False)
    check("the aws CLI with a wrong secret fails", done.returncode != 0 and b"SignatureDoesNotMatch" in done.stderr, done.stderr)
    unsigned = urllib.request.Request(f"{args.endpoint}/{args.bucket}/notes/alpha.md")
    try:
        urllib.request.urlopen(unsigned)
        raise AssertionError("an unsigned GET succeeded")
    except urllib.error.HTTPError as e:
        check("an unsigned request is refused", e.code == 403, e.code)
    print("every check passed")


def keys_of(args):
    """The extra keys of S3_TEST_KEYS (`name=id:secret,…`) as clients, by name."""
    found = {}
    for item in os.environ.get("S3_TEST_KEYS", "").split(","):
        if item:
            name, pair = item.split("=", 1)
            key, secret = pair.split(":", 1)
            found[name] = (key, secret)
    return found


def keyed(args, name):
    key, secret = keys_of(args)[name]
    return client(args, secret=secret, key=key)


def buckets_of(s3):
    return sorted(b["Name"] for b in s3.list_buckets()["Buckets"])


def keys_write(args):
    """Key `a` (every space), the single key and key `b` (write, limited to the other bucket)
    write; `b` never reaches the first bucket, not even as a copy's source."""
    bucket, other = args.bucket, args.other_bucket
    a, b = keyed(args, "a"), keyed(args, "b")
    check("key a lists every space", buckets_of(a) == sorted([bucket, other]), buckets_of(a))
    a.put_object(Bucket=bucket, Key="notes/by-a.md", Body=b"# By A\n")
    a.put_object(Bucket=other, Key="by-a.md", Body=b"# By A too\n")
    client(args).put_object(Bucket=bucket, Key="notes/by-main.md", Body=b"# By the single key\n")
    check("key b lists its bucket only", buckets_of(b) == [other], buckets_of(b))
    b.put_object(Bucket=other, Key="by-b.md", Body=b"# By B\n")
    check("key b reads its bucket", b.get_object(Bucket=other, Key="by-a.md")["Body"].read() == b"# By A too\n")
    for name, call in [
        ("GetObject", lambda: b.get_object(Bucket=bucket, Key="notes/alpha.md")),
        ("PutObject", lambda: b.put_object(Bucket=bucket, Key="notes/b.md", Body=b"x")),
        ("ListObjectsV2", lambda: b.list_objects_v2(Bucket=bucket)),
        ("HeadBucket", lambda: b.head_bucket(Bucket=bucket)),
        ("CopyObject from it", lambda: b.copy_object(Bucket=other, Key="stolen.md", CopySource=f"{bucket}/notes/alpha.md")),
    ]:
        code, status = code_of(call)
        check(f"key b is refused {name} on the other bucket", status == 403 and code in ("AccessDenied", "403"), (code, status))
    print("every check passed")


def keys_read(args):
    """Key `r`: read-only and limited to the other bucket."""
    bucket, other = args.bucket, args.other_bucket
    r = keyed(args, "r")
    check("a space-limited key lists its bucket only", buckets_of(r) == [other], buckets_of(r))
    listed = [o["Key"] for o in r.list_objects_v2(Bucket=other).get("Contents", [])]
    check("it lists its bucket", "by-b.md" in listed, listed)
    check("it reads its bucket", r.get_object(Bucket=other, Key="by-b.md")["Body"].read() == b"# By B\n")
    for name, call in [
        ("PutObject", lambda: r.put_object(Bucket=other, Key="r.md", Body=b"x")),
        ("DeleteObject", lambda: r.delete_object(Bucket=other, Key="by-b.md")),
        ("GetObject on the other bucket", lambda: r.get_object(Bucket=bucket, Key="notes/alpha.md")),
        ("ListObjectsV2 on the other bucket", lambda: r.list_objects_v2(Bucket=bucket)),
        ("PutObject on the other bucket", lambda: r.put_object(Bucket=bucket, Key="r.md", Body=b"x")),
    ]:
        check(f"it is refused {name}", code_of(call) == ("AccessDenied", 403))
    key, secret = keys_of(args)["r"]
    cli = Cli(args, args.tmp)
    cli.env["AWS_ACCESS_KEY_ID"] = key
    cli.env["AWS_SECRET_ACCESS_KEY"] = secret
    listed = cli.run("s3", "ls").stdout.decode()
    check("aws s3 ls shows its bucket only", other in listed and bucket not in listed.replace(other, ""), listed)
    path = os.path.join(args.tmp, "x.md")
    with open(path, "w") as f:
        f.write("# x\n")
    done = cli.run("s3", "cp", path, f"s3://{other}/x.md", ok=False)
    check("aws s3 cp with it fails", done.returncode != 0 and b"AccessDenied" in done.stderr, done.stderr)
    print("every check passed")


def slowdown(args):
    """With a low [server.rate_limit], key `a` is slowed down; key `b` is not."""
    a, b = keyed(args, "a"), keyed(args, "b")
    for attempt in range(50):
        try:
            a.list_objects_v2(Bucket=args.bucket)
        except ClientError as e:
            meta = e.response["ResponseMetadata"]
            check("the limited request is SlowDown", e.response["Error"]["Code"] == "SlowDown", e.response)
            check("with status 429", meta["HTTPStatusCode"] == 429, meta)
            retry = meta["HTTPHeaders"].get("retry-after", "")
            check("and Retry-After", retry.isdigit() and int(retry) >= 1, meta["HTTPHeaders"])
            check("after a few requests", attempt >= 2, attempt)
            break
    else:
        raise AssertionError("50 requests and none was limited")
    listed = b.list_objects_v2(Bucket=args.other_bucket)
    check("another key has its own budget", listed["ResponseMetadata"]["HTTPStatusCode"] == 200, listed)
    print("every check passed")


def audited(args):
    """Writes and refusals the audit log should hold: key `a` writes, key `r` is refused, a
    wrong secret is refused."""
    a, r = keyed(args, "a"), keyed(args, "r")
    a.put_object(Bucket=args.bucket, Key="notes/audited.md", Body=b"# Audited\n")
    a.get_object(Bucket=args.bucket, Key="notes/audited.md")
    check("a read-only key is refused", code_of(lambda: r.put_object(Bucket=args.other_bucket, Key="no.md", Body=b"x")) == ("AccessDenied", 403))
    key, _ = keys_of(args)["a"]
    bad = client(args, secret="not-the-secret", key=key)
    check("a wrong secret is refused", code_of(lambda: bad.get_object(Bucket=args.bucket, Key="notes/alpha.md"))[1] == 403)
    print("every check passed")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "mode", choices=["full", "readonly", "wrong", "keys-write", "keys-read", "slowdown", "audited"]
    )
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--rest", required=True, help="http://host:port/api/quire")
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--other-bucket")
    parser.add_argument("--root", required=True)
    parser.add_argument("--other-root")
    parser.add_argument("--access-key", required=True)
    parser.add_argument("--region", required=True)
    args = parser.parse_args()
    args.secret_key = os.environ["S3_TEST_SECRET"]
    with tempfile.TemporaryDirectory() as tmp:
        args.tmp = tmp
        modes = {
            "full": full,
            "readonly": readonly,
            "wrong": wrong,
            "keys-write": keys_write,
            "keys-read": keys_read,
            "slowdown": slowdown,
            "audited": audited,
        }
        modes[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
