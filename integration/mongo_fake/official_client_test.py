#!/usr/bin/env python3
"""The fake driven by MongoDB's official Python driver (Debian's python3-pymongo):
if pymongo accepts its answers, libmongoc's use of the same commands is sound.
Run with /usr/bin/python3 (Debian's pymongo); bazel: //integration/mongo_fake:official_client_test.
"""

import os
import socket
import subprocess
import sys
import time
import unittest

import pymongo
from pymongo import InsertOne, ReplaceOne, UpdateOne
from pymongo.errors import BulkWriteError, DuplicateKeyError

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OfficialClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        cls.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "mongo_fake.py"),
                                     "--port", str(cls.port)], stdout=subprocess.PIPE)
        cls.proc.stdout.readline()  # "mongo_fake listening on ..."
        cls.client = pymongo.MongoClient("127.0.0.1", cls.port, serverSelectionTimeoutMS=3000,
                                         connectTimeoutMS=1000, retryWrites=False)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.proc.kill()
        cls.proc.wait()

    def setUp(self):
        self.coll = self.client.shop[self.id().split(".")[-1]]
        self.client.admin.command({"sluiceFakeFail": 1, "ids": []})

    def test_handshake_and_server_info(self):
        self.assertEqual(self.client.admin.command("ping")["ok"], 1.0)
        self.assertEqual(self.client.server_info()["version"], "5.0.0")

    def test_unordered_bulk_with_upserts_and_an_injected_error(self):
        self.coll.insert_one({"_id": "o1", "status": "old"})
        self.client.admin.command({"sluiceFakeFail": 1, "ids": ["o2"], "code": 121,
                                   "errmsg": "Document failed validation"})
        with self.assertRaises(BulkWriteError) as caught:
            self.coll.bulk_write([ReplaceOne({"_id": i}, {"status": "new", "n": n}, upsert=True)
                                  for n, i in enumerate(["o1", "o2", "o3"])], ordered=False)
        details = caught.exception.details
        self.assertEqual([(e["index"], e["code"]) for e in details["writeErrors"]], [(1, 121)])
        self.assertEqual(details["writeErrors"][0]["errmsg"], "Document failed validation")
        self.assertEqual(details["nMatched"], 1)
        self.assertEqual(details["nModified"], 1)
        self.assertEqual(details["upserted"], [{"index": 2, "_id": "o3"}])
        docs = {d["_id"]: d for d in self.coll.find()}
        self.assertEqual(sorted(docs), ["o1", "o3"])
        self.assertEqual(docs["o1"], {"_id": "o1", "status": "new", "n": 0})

    def test_ordered_bulk_stops_at_the_first_error(self):
        with self.assertRaises(BulkWriteError) as caught:
            self.coll.bulk_write([InsertOne({"_id": 1}), InsertOne({"_id": 1}),
                                  InsertOne({"_id": 2})])
        self.assertEqual(caught.exception.details["writeErrors"][0]["code"], 11000)
        self.assertEqual(len(list(self.coll.find())), 1)

    def test_duplicate_key(self):
        self.coll.insert_one({"_id": "k"})
        with self.assertRaises(DuplicateKeyError):
            self.coll.insert_one({"_id": "k"})

    def test_find_filters_by_equality_and_pages_with_get_more(self):
        self.coll.insert_many([{"_id": i, "even": i % 2 == 0, "a": {"b": i}} for i in range(250)])
        self.assertEqual(len(list(self.coll.find({"even": True}).batch_size(7))), 125)
        self.assertEqual(self.coll.find_one({"a.b": 17})["_id"], 17)
        self.assertEqual(len(list(self.coll.find())), 250)  # 101 + getMore

    def test_replace_one_and_update_one(self):
        self.coll.insert_one({"_id": "r", "a": 1, "b": 2})
        res = self.coll.replace_one({"_id": "r"}, {"a": 5})
        self.assertEqual((res.matched_count, res.modified_count), (1, 1))
        self.assertEqual(self.coll.find_one({"_id": "r"}), {"_id": "r", "a": 5})
        res = self.coll.update_one({"_id": "r"}, {"$set": {"c": 3}, "$inc": {"a": 1}})
        self.assertEqual(self.coll.find_one({"_id": "r"}), {"_id": "r", "a": 6, "c": 3})

    def test_replacement_keeps_the_id_and_counts_modified(self):
        self.coll.insert_one({"_id": "r", "a": 1})
        res = self.coll.bulk_write([ReplaceOne({"_id": "r"}, {"_id": "r", "a": 1}, upsert=True)])
        self.assertEqual((res.matched_count, res.modified_count), (1, 0), "same document")
        with self.assertRaises(pymongo.errors.WriteError) as caught:
            self.coll.replace_one({"_id": "r"}, {"_id": "other", "a": 2})
        self.assertEqual(caught.exception.code, 66)
        self.assertEqual(self.coll.find_one({"a": 1}), {"_id": "r", "a": 1})

    def test_update_one_on_a_missing_document_matches_nothing(self):
        res = self.coll.update_one({"_id": "missing"}, {"$set": {"x": 1}})
        self.assertEqual((res.matched_count, res.modified_count, res.upserted_id), (0, 0, None))
        res = self.coll.replace_one({"_id": "missing"}, {"x": 1})
        self.assertEqual(res.matched_count, 0)
        self.assertIsNone(self.coll.find_one({"_id": "missing"}))
        res = self.coll.update_one({"_id": "missing"}, {"$set": {"x": 1}}, upsert=True)
        self.assertEqual(res.upserted_id, "missing")

    def test_delete_and_drop(self):
        self.coll.insert_many([{"_id": 1}, {"_id": 2}])
        self.assertEqual(self.coll.delete_one({"_id": 1}).deleted_count, 1)
        self.coll.drop()
        self.assertEqual(list(self.coll.find()), [])

    def test_scram_sha_256_accepts_the_password_and_refuses_another(self):
        password = "p@ss:/?#[]w=rd,%"
        self.client.admin.command({"sluiceFakeAddUser": "ana", "pwd": password, "db": "users"})
        good = pymongo.MongoClient("127.0.0.1", self.port, username="ana", password=password,
                                   authSource="users", authMechanism="SCRAM-SHA-256",
                                   serverSelectionTimeoutMS=3000)
        self.assertEqual(good.admin.command("ping")["ok"], 1.0)
        good.close()
        bad = pymongo.MongoClient("127.0.0.1", self.port, username="ana", password="wrong",
                                  authSource="users", authMechanism="SCRAM-SHA-256",
                                  serverSelectionTimeoutMS=3000)
        with self.assertRaises(pymongo.errors.OperationFailure) as caught:
            bad.admin.command("ping")
        self.assertEqual(caught.exception.code, 18)
        bad.close()

    def test_outage_closes_connections_then_recovers(self):
        self.coll.insert_one({"_id": "before"})
        self.client.admin.command({"sluiceFakeOutage": 500})
        with self.assertRaises(pymongo.errors.AutoReconnect):
            self.coll.insert_one({"_id": "during"})
        deadline = time.monotonic() + 10
        while True:
            try:
                self.coll.insert_one({"_id": "after"})
                break
            except pymongo.errors.AutoReconnect:
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.1)
        self.assertEqual(sorted(d["_id"] for d in self.coll.find()), ["after", "before"])


if __name__ == "__main__":
    unittest.main()
