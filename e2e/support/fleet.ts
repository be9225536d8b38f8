// A fleet enrolled the way agents enrol: each machine exchanges the console's enrolment token for
// its own credential at the gateway's POST /v1/enroll (as `spindle-agent enroll` does), then may
// send one OTLP/JSON batch with that credential (the capabilities it reports, as an agent's
// resource carries them). No row is written behind the product's back.
export interface MachineSpec {
  hostname: string;
  osVersion: string;
  kernel: string;
  agentVersion: string;
}

export interface EnrolledMachine extends MachineSpec {
  serverId: string;
  credential: string;
}

export async function enrolMachine(gatewayUrl: string, token: string, machine: MachineSpec): Promise<EnrolledMachine> {
  const response = await fetch(`${gatewayUrl}/v1/enroll`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token, machineId: `e2e-fleet-${machine.hostname}-${token.slice(-6)}`, os: "linux", arch: "amd64", ...machine }),
  });
  if (response.status !== 200)
    throw new Error(`enrolling ${machine.hostname}: the gateway answered ${response.status}: ${await response.text()}`);
  const { serverId, credential } = (await response.json()) as { serverId: string; credential: string };
  return { ...machine, serverId, credential };
}

/** One batch (sequence 1) carrying the capabilities the machine reports and its spool gauges. */
export async function reportCapabilities(gatewayUrl: string, machine: EnrolledMachine, capabilities: string[]): Promise<void> {
  const now = BigInt(Date.now()) * 1_000_000n;
  const point = (value: number) => ({ startTimeUnixNano: `${now - 10_000_000_000n}`, timeUnixNano: `${now}`, asInt: `${value}` });
  const body = {
    resourceMetrics: [
      {
        resource: {
          attributes: [
            { key: "service.name", value: { stringValue: "spindle-agent" } },
            { key: "service.version", value: { stringValue: machine.agentVersion } },
            { key: "host.name", value: { stringValue: machine.hostname } },
            { key: "os.type", value: { stringValue: "linux" } },
            { key: "spindle.batch.seq", value: { intValue: "1" } },
            { key: "spindle.agent.capabilities", value: { arrayValue: { values: capabilities.map((c) => ({ stringValue: c })) } } },
          ],
        },
        scopeMetrics: [
          {
            scope: { name: "github.com/spindle-io/spindle/agent" },
            metrics: [
              { name: "spindle.agent.spool.size", unit: "By", gauge: { dataPoints: [point(0)] } },
              { name: "spindle.agent.spool.batches", unit: "{batch}", gauge: { dataPoints: [point(0)] } },
            ],
          },
        ],
      },
    ],
  };
  const response = await fetch(`${gatewayUrl}/v1/metrics`, {
    method: "POST",
    headers: { authorization: `Bearer ${machine.credential}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 200)
    throw new Error(`${machine.hostname}'s batch: the gateway answered ${response.status}: ${await response.text()}`);
}
