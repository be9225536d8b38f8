-- spindle.disk.io.untimed (docs/metrics.md): the block I/Os a disk completed by its own counters
-- (/sys/block/<disk>/stat) that the latency histograms of disk_latency do not hold, per device,
-- operation and interval. Shared by plain.sql and timescale.sql.
--
-- A table of its own next to disk_latency, with the same keys, rather than a column of it:
-- disk_latency's continuous aggregates cannot gain a column without being dropped, and a dropped
-- aggregate loses every bucket older than the raw retention; and an interval can have untimed
-- I/Os and no histogram at all (every completion missed), which a column of a histogram row could
-- not hold.
--
-- What a missing row means: an agent that counts untimed I/Os sends a count (0 included) with
-- every read, write and discard histogram, and a count without a histogram only when it is not 0.
-- So a disk_latency row with no disk_io_untimed row of the same (device, operation, time) was
-- not measured: an agent from before the count, a Windows agent (ETW), flushes (the disks'
-- counters include flushes the kernel answered without issuing them), a bio-based disk, or the
-- disk's first interval. Never read a missing row as 0.
CREATE TABLE disk_io_untimed (
  time             timestamptz      NOT NULL,  -- end of the sampling interval
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  device           text             NOT NULL,
  -- read or write (disk.io.direction), or discard (spindle.disk.operation); flushes are not counted
  operation        text             NOT NULL CHECK (operation IN ('read', 'write', 'discard')),
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  untimed_ops      bigint           NOT NULL CHECK (untimed_ops >= 0)
);
