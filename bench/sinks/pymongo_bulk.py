#!/usr/bin/env python3
"""The baseline of mongo_bench: MongoDB's official Python driver (Debian's
python3-pymongo) loading the same documents into the same server as the sink
does: unordered bulk_write of ReplaceOne(upsert) in batches of BATCH.

usage: /usr/bin/python3 pymongo_bulk.py HOST:PORT DB COLL DOCS.jsonl BATCH
Prints "<documents> <seconds>" (only the writes are timed).
"""
import json
import sys
import time

import pymongo
from pymongo import ReplaceOne


def main():
    address, db, coll, path, batch = sys.argv[1:6]
    batch = int(batch)
    with open(path) as f:
        docs = [json.loads(line) for line in f]
    ops = [ReplaceOne({"_id": d["_id"]}, d, upsert=True) for d in docs]
    client = pymongo.MongoClient("mongodb://%s/" % address, retryWrites=False)
    collection = client[db][coll]
    t0 = time.monotonic()
    for i in range(0, len(ops), batch):
        collection.bulk_write(ops[i:i + batch], ordered=False)
    print(len(ops), time.monotonic() - t0)


if __name__ == "__main__":
    main()
