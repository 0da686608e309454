CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text,
	`last_used_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "api_tokens_role_check" CHECK("api_tokens"."role" in ('admin', 'viewer'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_user` ON `api_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `array_disks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`role` text NOT NULL,
	`role_index` integer NOT NULL,
	`device` text NOT NULL,
	`filesystem` text NOT NULL,
	`fs_uuid` text NOT NULL,
	`wwn` text,
	`serial` text,
	`by_id_name` text,
	`weak_identity` integer NOT NULL,
	`size_bytes` integer,
	`mountpoint` text NOT NULL,
	`removal_state` text,
	CONSTRAINT "array_disks_role_check" CHECK("array_disks"."role" in ('data', 'parity', 'cache')),
	CONSTRAINT "array_disks_role_index_check" CHECK("array_disks"."role_index" >= 1),
	CONSTRAINT "array_disks_fs_check" CHECK("array_disks"."filesystem" in ('xfs', 'ext4', 'btrfs')),
	CONSTRAINT "array_disks_removal_check" CHECK("array_disks"."removal_state" is null or "array_disks"."removal_state" in ('evacuating', 'evacuated', 'unpooled', 'unlisted'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `array_disks_fs_uuid_unique` ON `array_disks` (`fs_uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `array_disks_mountpoint_unique` ON `array_disks` (`mountpoint`);--> statement-breakpoint
CREATE UNIQUE INDEX `array_disks_role_index` ON `array_disks` (`role`,`role_index`);--> statement-breakpoint
CREATE UNIQUE INDEX `array_disks_one_cache` ON `array_disks` (`role`) WHERE role = 'cache';--> statement-breakpoint
CREATE TABLE `array_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`create_policy` text NOT NULL,
	`migration_pending` integer DEFAULT 0 NOT NULL,
	`migration_pending_since` text,
	`created_at` text NOT NULL,
	CONSTRAINT "array_settings_singleton" CHECK("array_settings"."id" = 1)
) STRICT;
--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` text NOT NULL,
	`actor` text NOT NULL,
	`token_id` text,
	`operation` text NOT NULL,
	`target` text NOT NULL,
	`outcome` text NOT NULL,
	`details` text DEFAULT '{}' NOT NULL,
	CONSTRAINT "audit_log_outcome_check" CHECK("audit_log"."outcome" in ('ok', 'partial', 'failed'))
) STRICT;
--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `catalog_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`position` integer NOT NULL,
	`url` text,
	`public_key` text,
	`serial` integer,
	`last_refreshed_at` text,
	`last_error` text,
	`added_at` text NOT NULL,
	CONSTRAINT "catalog_sources_kind_check" CHECK("catalog_sources"."kind" in ('builtin', 'directory', 'https'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_sources_position_unique` ON `catalog_sources` (`position`);--> statement-breakpoint
CREATE TABLE `external_disks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`label` text NOT NULL,
	`device` text NOT NULL,
	`filesystem` text,
	`fs_uuid` text,
	`wwn` text,
	`serial` text,
	`by_id_name` text,
	`weak_identity` integer NOT NULL,
	`size_bytes` integer NOT NULL,
	`backup_destination` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`formatted_at` text
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `external_disks_fs_uuid_unique` ON `external_disks` (`fs_uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `external_disks_label_nocase` ON `external_disks` ("label" collate nocase);--> statement-breakpoint
CREATE TABLE `machine_key_check` (
	`id` integer PRIMARY KEY NOT NULL,
	`hmac` text NOT NULL,
	`created_at` text NOT NULL,
	CONSTRAINT "machine_key_check_singleton" CHECK("machine_key_check"."id" = 1)
) STRICT;
--> statement-breakpoint
CREATE TABLE `notify_alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_type` text NOT NULL,
	`severity` text NOT NULL,
	`title` text NOT NULL,
	`message` text NOT NULL,
	`occurred_at` text NOT NULL,
	CONSTRAINT "notify_alerts_severity_check" CHECK("notify_alerts"."severity" in ('info', 'warning', 'error', 'critical'))
) STRICT;
--> statement-breakpoint
CREATE TABLE `notify_channels` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`enabled` integer NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`secret` blob,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "notify_channels_type_check" CHECK("notify_channels"."type" in ('webhook', 'ntfy', 'gotify', 'discord', 'email'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `notify_channels_name_lower` ON `notify_channels` (lower("name"));--> statement-breakpoint
CREATE TABLE `notify_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`alert_id` integer NOT NULL,
	`channel_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`alert_id`) REFERENCES `notify_alerts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `notify_channels`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "notify_deliveries_status_check" CHECK("notify_deliveries"."status" in ('pending', 'delivered', 'failed'))
) STRICT;
--> statement-breakpoint
CREATE INDEX `notify_deliveries_due` ON `notify_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `notify_event_severity` (
	`event_type` text PRIMARY KEY NOT NULL,
	`severity` text NOT NULL,
	CONSTRAINT "notify_event_severity_check" CHECK("notify_event_severity"."severity" in ('info', 'warning', 'error', 'critical'))
) STRICT;
--> statement-breakpoint
CREATE TABLE `notify_routes` (
	`event_type` text NOT NULL,
	`channel_id` text NOT NULL,
	PRIMARY KEY(`event_type`, `channel_id`),
	FOREIGN KEY (`channel_id`) REFERENCES `notify_channels`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `notify_routes_channel` ON `notify_routes` (`channel_id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`hostname` text NOT NULL,
	`timezone` text NOT NULL,
	`backup_passphrase` blob,
	`updated_at` text NOT NULL,
	CONSTRAINT "settings_singleton" CHECK("settings"."id" = 1)
) STRICT;
--> statement-breakpoint
CREATE TABLE `share_group_permissions` (
	`share_name` text NOT NULL,
	`group_id` text NOT NULL,
	`access` text NOT NULL,
	PRIMARY KEY(`share_name`, `group_id`),
	FOREIGN KEY (`share_name`) REFERENCES `shares`(`name`) ON UPDATE cascade ON DELETE cascade,
	FOREIGN KEY (`group_id`) REFERENCES `user_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "share_group_permissions_access_check" CHECK("share_group_permissions"."access" in ('none', 'read-only', 'read-write'))
) STRICT;
--> statement-breakpoint
CREATE INDEX `share_group_permissions_group` ON `share_group_permissions` (`group_id`);--> statement-breakpoint
CREATE TABLE `share_user_permissions` (
	`share_name` text NOT NULL,
	`user_id` text NOT NULL,
	`access` text NOT NULL,
	PRIMARY KEY(`share_name`, `user_id`),
	FOREIGN KEY (`share_name`) REFERENCES `shares`(`name`) ON UPDATE cascade ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "share_user_permissions_access_check" CHECK("share_user_permissions"."access" in ('none', 'read-only', 'read-write'))
) STRICT;
--> statement-breakpoint
CREATE INDEX `share_user_permissions_user` ON `share_user_permissions` (`user_id`);--> statement-breakpoint
CREATE TABLE `shares` (
	`name` text PRIMARY KEY NOT NULL,
	`cache_mode` text NOT NULL,
	`create_policy` text NOT NULL,
	`smb_enabled` integer DEFAULT 1 NOT NULL,
	`smb_browseable` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "shares_cache_mode_check" CHECK("shares"."cache_mode" in ('cache-then-move', 'cache-only', 'array-only')),
	CONSTRAINT "shares_create_policy_check" CHECK("shares"."create_policy" in ('mfs', 'lfs', 'ff', 'epmfs', 'mspmfs'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `shares_name_lower` ON `shares` (lower("name"));--> statement-breakpoint
CREATE TABLE `stacks` (
	`name` text PRIMARY KEY NOT NULL,
	`template_source` text,
	`template_id` text,
	`template_revision` integer,
	`compose` text NOT NULL,
	`env` blob NOT NULL,
	`installed_at` text NOT NULL,
	`manually_edited` integer DEFAULT 0 NOT NULL,
	`pending` integer DEFAULT 1 NOT NULL,
	CONSTRAINT "stacks_template_all_or_none" CHECK(("stacks"."template_source" is null and "stacks"."template_id" is null and "stacks"."template_revision" is null) or ("stacks"."template_source" is not null and "stacks"."template_id" is not null and "stacks"."template_revision" is not null))
) STRICT;
--> statement-breakpoint
CREATE INDEX `stacks_template` ON `stacks` (`template_id`);--> statement-breakpoint
CREATE TABLE `user_group_members` (
	`group_id` text NOT NULL,
	`user_id` text NOT NULL,
	PRIMARY KEY(`group_id`, `user_id`),
	FOREIGN KEY (`group_id`) REFERENCES `user_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE INDEX `user_group_members_user` ON `user_group_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `user_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `user_groups_name_lower` ON `user_groups` (lower("name"));--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "users_role_check" CHECK("users"."role" in ('admin', 'viewer', 'share-only'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_lower` ON `users` (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX `users_one_admin` ON `users` (`role`) WHERE role = 'admin';