// Where the journeys' mail sink listens: overridable so several checkouts can run at once, with
// defaults clear of the other tests' ports.
export function mailPorts(): { smtpPort: number; readerPort: number } {
  return {
    smtpPort: Number(process.env.SPINDLE_E2E_SMTP_PORT ?? 3125),
    readerPort: Number(process.env.SPINDLE_E2E_MAILBOX_PORT ?? 3126),
  };
}
