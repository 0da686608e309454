CREATE TABLE `web_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`secret_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `web_sessions_secret_hash_unique` ON `web_sessions` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `web_sessions_user` ON `web_sessions` (`user_id`);