-- The policy hash columns keep their rule (64 lowercase hex digits) with a cheaper check.
-- PostgreSQL's regex engine runs a bounded repetition such as '^[0-9a-f]{64}$' as a counted
-- automaton: about 30 µs per value, against 1 µs for '^[0-9a-f]+$'. Every OpAMP confirmation
-- checks three hashes, so a fleet-wide change to 10,000 agents spent close to a second of
-- database CPU in these checks alone, and the worker's upsert of 10,000 effective policies
-- another 0.3 s (docs/benchmarks.md, "OpAMP at fleet scale"). Same names, same meaning: a
-- NULL still passes, anything but exactly 64 characters of [0-9a-f] still fails.
ALTER TABLE server_policy_status
  DROP CONSTRAINT server_policy_status_desired_version_hash_check,
  DROP CONSTRAINT server_policy_status_applied_hash_check,
  DROP CONSTRAINT server_policy_status_reported_hash_check,
  ADD CONSTRAINT server_policy_status_desired_version_hash_check
    CHECK (length(desired_version_hash) = 64 AND desired_version_hash ~ '^[0-9a-f]+$'),
  ADD CONSTRAINT server_policy_status_applied_hash_check
    CHECK (length(applied_hash) = 64 AND applied_hash ~ '^[0-9a-f]+$'),
  ADD CONSTRAINT server_policy_status_reported_hash_check
    CHECK (length(reported_hash) = 64 AND reported_hash ~ '^[0-9a-f]+$');

ALTER TABLE server_effective_policies
  DROP CONSTRAINT server_effective_policies_hash_check,
  ADD CONSTRAINT server_effective_policies_hash_check
    CHECK (length(hash) = 64 AND hash ~ '^[0-9a-f]+$');
