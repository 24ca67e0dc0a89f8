"""metaschedule_retime.py's command line: what it refuses before TVM is imported."""

import contextlib
import io
import os
import tempfile
import unittest

import metaschedule_retime as retime

OP = "conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,pad=0,bias=1"


class ParseArgsTest(unittest.TestCase):
    def setUp(self):
        handle, self.library = tempfile.mkstemp(suffix=".so")
        os.close(handle)

    def tearDown(self):
        os.remove(self.library)

    def refusal(self, argv):
        stderr = io.StringIO()
        with self.assertRaises(SystemExit) as caught, contextlib.redirect_stderr(stderr):
            retime.parse_args(argv)
        self.assertEqual(caught.exception.code, 2)
        return stderr.getvalue()

    def test_defaults(self):
        args = retime.parse_args(["--library", self.library, "--op", OP])
        self.assertEqual((args.threads, args.repeat, args.rounds, args.warmup_s), (2, 200, 3, 2.0))
        self.assertEqual(args.parsed_op["K"], 256)
        self.assertEqual(args.parsed_op["stride"], 2)

    def test_refuses_a_missing_library(self):
        message = self.refusal(["--library", self.library + ".missing", "--op", OP])
        self.assertIn("--library", message)
        self.assertIn("no such file", message)

    def test_refuses_an_op_it_cannot_read(self):
        message = self.refusal(["--library", self.library, "--op", "conv2d:N=1,C=3"])
        self.assertIn("--op", message)

    def test_refuses_counts_below_one(self):
        for flag in ("--threads", "--repeat", "--rounds"):
            message = self.refusal(["--library", self.library, "--op", OP, flag, "0"])
            self.assertIn(f"{flag} is 0", message)

    def test_refuses_a_negative_warmup(self):
        message = self.refusal(["--library", self.library, "--op", OP, "--warmup-s", "-1"])
        self.assertIn("--warmup-s is -1", message)


if __name__ == "__main__":
    unittest.main()
