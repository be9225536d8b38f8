// One call per delivery attempt: render-independent, it takes what the renderer produced and the
// channel's settings, and either returns what the receiver said or throws a DeliveryError.
import type { ChannelSettings } from "../channel-kinds.js";
import type { RenderedMessage } from "../render/message.js";
import { DeliveryError } from "./errors.js";
import { postMessage } from "./http.js";
import { sendEmail } from "./smtp.js";
import type { TargetPolicy } from "./target-guard.js";

export { DeliveryError } from "./errors.js";
export { isPrivateAddress, type TargetPolicy } from "./target-guard.js";

export interface SendOptions extends TargetPolicy {
  /** The whole attempt's deadline: connect, send and answer. */
  timeoutMs: number;
  notificationId: string;
}

/** Returns a short description of the receiver's answer, kept with the sent notification. */
export async function sendRendered(message: RenderedMessage, settings: ChannelSettings, options: SendOptions): Promise<string> {
  if (message.transport === "smtp") {
    if (settings.kind !== "email") throw new DeliveryError(`an e-mail cannot be sent through a ${settings.kind} channel`, false);
    const result = await sendEmail(message, settings, options);
    return `accepted for ${result.accepted.length} recipient(s): ${result.response}`.slice(0, 500);
  }
  const result = await postMessage(message, options);
  return `HTTP ${result.status}`;
}
