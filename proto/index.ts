/**
 * Contracts that cross service boundaries. `gen/` is generated from the .proto files by
 * `npm run proto:gen` (buf + protoc-gen-es); never edit it by hand — CI fails when it is stale.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { FindingReviewedSchema, JobCancelRequestedSchema, JobCompletedSchema, JobDeletedSchema, JobFailedSchema, JobPurgedSchema, JobQueuedSchema } from './gen/baret/v1/job_pb.js';
import { EmailVerificationRequestedSchema, PasswordResetRequestedSchema, UserDeletedSchema, UserPromotedSchema, UserRegisteredSchema } from './gen/baret/v1/identity_pb.js';
import { ContactMessageSubmittedSchema, UpgradeRequestedSchema } from './gen/baret/v1/notification_pb.js';
import { QuotaReleasedSchema, QuotaReservedSchema, QuotaThresholdReachedSchema } from './gen/baret/v1/quota_pb.js';
import { OrgCreatedSchema, OrgInviteCreatedSchema, OrgInviteMailRequestedSchema, OrgMemberAddedSchema, OrgMemberRemovedSchema, OrgMemberRoleChangedSchema, OrgSettingsChangedSchema, UnitArchivedSchema, UnitCreatedSchema } from './gen/baret/v1/organisation_pb.js';

import { AuditRecordedSchema } from './gen/baret/v1/audit_pb.js';

export * from './gen/baret/v1/audit_pb.js';
export * from './gen/baret/v1/envelope_pb.js';
export * from './gen/baret/v1/identity_pb.js';
export * from './gen/baret/v1/job_pb.js';
export * from './gen/baret/v1/notification_pb.js';
export * from './gen/baret/v1/quota_pb.js';
export * from './gen/baret/v1/organisation_pb.js';

/**
 * Event type (as stored in the event store) → its protobuf message. Only events listed here
 * cross a service boundary; the relay refuses to publish any other.
 */
export const eventSchemas: Record<string, DescMessage> = {
  user_registered: UserRegisteredSchema,
  user_promoted: UserPromotedSchema,
  user_deleted: UserDeletedSchema,
  password_reset_requested: PasswordResetRequestedSchema,
  email_verification_requested: EmailVerificationRequestedSchema,
  quota_reserved: QuotaReservedSchema,
  quota_released: QuotaReleasedSchema,
  quota_threshold_reached: QuotaThresholdReachedSchema,
  contact_message_submitted: ContactMessageSubmittedSchema,
  upgrade_requested: UpgradeRequestedSchema,
  job_queued: JobQueuedSchema,
  job_cancel_requested: JobCancelRequestedSchema,
  job_deleted: JobDeletedSchema,
  job_completed: JobCompletedSchema,
  job_failed: JobFailedSchema,
  job_purged: JobPurgedSchema,
  finding_reviewed: FindingReviewedSchema,
  org_created: OrgCreatedSchema,
  org_member_added: OrgMemberAddedSchema,
  org_member_removed: OrgMemberRemovedSchema,
  org_invite_created: OrgInviteCreatedSchema,
  org_member_role_changed: OrgMemberRoleChangedSchema,
  org_invite_mail_requested: OrgInviteMailRequestedSchema,
  org_settings_changed: OrgSettingsChangedSchema,
  site_created: UnitCreatedSchema,
  site_archived: UnitArchivedSchema,
  crew_created: UnitCreatedSchema,
  crew_archived: UnitArchivedSchema,
  audit_recorded: AuditRecordedSchema,
};
