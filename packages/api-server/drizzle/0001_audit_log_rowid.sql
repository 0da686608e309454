PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_audit_log` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` text NOT NULL,
	`actor` text NOT NULL,
	`token_id` text,
	`operation` text NOT NULL,
	`target` text NOT NULL,
	`outcome` text NOT NULL,
	`details` text DEFAULT '{}' NOT NULL,
	CONSTRAINT "audit_log_outcome_check" CHECK("__new_audit_log"."outcome" in ('ok', 'partial', 'failed'))
) STRICT;
--> statement-breakpoint
INSERT INTO `__new_audit_log`("id", "at", "actor", "token_id", "operation", "target", "outcome", "details") SELECT "id", "at", "actor", "token_id", "operation", "target", "outcome", "details" FROM `audit_log`;--> statement-breakpoint
DROP TABLE `audit_log`;--> statement-breakpoint
ALTER TABLE `__new_audit_log` RENAME TO `audit_log`;--> statement-breakpoint
PRAGMA foreign_keys=ON;