// @spindle/notify: notification channels, routing, rendering, senders and the outbox.
// The alert engine calls enqueueAlertNotifications in its transaction; the console manages
// channels and routes and calls sendTestNotification; the worker delivers (apps/worker).
export * from "./notice.js";
export * from "./channel-kinds.js";
export * from "./routing.js";
export * from "./standard-webhooks.js";
export { NotifyInputError } from "./input-error.js";
export * from "./digest.js";
export { enqueueRecommendationDigest, type DigestRequest, type DigestResult } from "./store/digest.js";
export {
  renderNotification,
  type DigestToRender,
  type EmailMessage,
  type HttpMessage,
  type NotificationToRender,
  type RenderContext,
  type RenderedMessage,
} from "./render/index.js";
export { alertKeyOf } from "./render/text.js";
export { DeliveryError, isPrivateAddress, sendRendered, type SendOptions, type TargetPolicy } from "./send/index.js";
export type { Queryable } from "./store/queryable.js";
export * from "./store/outbox.js";
export { enqueueTransitionGroup, type AlertTransitionGroupLike } from "./store/transitions.js";
export {
  generateSecretsKey,
  isSealed,
  SecretsOpener,
  SecretsSealer,
  secretsBinding,
  type SealedSecrets,
} from "./secrets/sealed-secrets.js";
export { currentSealer, registerSecretsKey, SecretsKeyMissingError } from "./store/secrets-keys.js";
export {
  createChannel,
  createRoute,
  deleteChannel,
  deleteRoute,
  listChannels,
  listRoutes,
  updateChannel,
  type ChannelView,
  type CreateChannelInput,
  type RouteView,
  type UpdateChannelInput,
} from "./store/channels.js";
