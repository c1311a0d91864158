// The rest of the service's `canvas` namespace: the tables its public schema documentation
// lists besides the seven written out in canvasTables.ts, each with its key, its columns and
// their types as documented (a `| None` there is `?` here; references to tables outside the
// namespace are plain int64), in the compact form compactTables.ts reads. Row counts are small:
// the namespace is here to be listed, browsed and synced at its real width, not its real depth.

import type { CompactTable } from './compactTables';

const WF = '{active,deleted}';

/** [name, about, rows, columns] */
type Row = [string, string, number, string];

const ROWS: Row[] = [
  ['access_tokens', 'Access tokens of users and developer tools (metadata only)', 40,
    `developer_key_id:>developer_keys user_id?:>users real_user_id?:>users last_used_at?:ts expires_at?:ts purpose?:s255
     created_at:ts updated_at:ts scopes?:json workflow_state:${WF}`],
  ['account_users', 'Roles of users within accounts, the admins included', 60,
    `user_id:>users created_at:ts updated_at:ts account_id:>accounts role_id:>roles workflow_state:${WF}`],
  ['assessment_question_banks', 'Banks of questions that quizzes of several courses can draw from', 20,
    `deleted_at?:ts created_at:ts updated_at:ts context_id?:>courses context_type:{Account,Course} migration_id?:s255 title?:str
     workflow_state:${WF}`],
  ['assessment_questions', 'Questions of the question banks', 120,
    `name?:str deleted_at?:ts created_at?:ts updated_at?:ts context_id?:i64 context_type?:s255 question_data?:json
     assessment_question_bank_id?:>assessment_question_banks migration_id?:s255 position?:i32
     workflow_state:{active,deleted,independently_edited}`],
  ['assignment_groups', 'Groups of assignments in a course, with their weights and drop rules', 60,
    `name?:s255 created_at:ts updated_at:ts context_id:>courses context_type:{Course} default_assignment_name?:s255 group_weight?:f64
     migration_id?:s255 sis_source_id?:s255 position?:i32 rules?:(drop_highest?:i32 drop_lowest?:i32 never_drop:[i64])
     workflow_state:{available,deleted}`],
  ['assignment_override_students', 'Students an assignment override applies to', 40,
    `user_id:>users created_at:ts updated_at:ts assignment_id?:>assignments quiz_id?:>quizzes workflow_state:${WF}`],
  ['assignment_overrides', 'Due, unlock and lock dates overridden for some students, sections or groups', 40,
    `created_at:ts updated_at:ts due_at?:ts unlock_at?:ts lock_at?:ts all_day?:bool assignment_version?:i32 due_at_overridden:bool
     unlock_at_overridden:bool lock_at_overridden:bool quiz_id?:>quizzes quiz_version?:i32 assignment_id?:>assignments
     all_day_date?:date title:s255 set_type?:{ADHOC,CourseSection,Group} set_id?:i64 workflow_state:${WF}`],
  ['attachment_associations', 'Files attached to submissions and messages', 60,
    `attachment_id?:>attachments context_id?:i64 context_type:{ConversationMessage,Submission}`],
  ['attachments', 'Files', 200,
    `deleted_at?:ts user_id?:>users created_at?:ts updated_at?:ts unlock_at?:ts lock_at?:ts folder_id?:>folders filename?:str
     locked:bool media_entry_id?:s255 md5?:s255 replacement_attachment_id?:>attachments usage_rights_id?:i64 modified_at?:ts
     viewed_at?:ts could_be_locked?:bool migration_id?:s255 namespace?:s255 size?:i64 display_name?:str content_type?:s255
     uuid?:s255 root_attachment_id?:>attachments context_id?:i64 context_type:{Course,User,Group,Submission,Assignment}
     file_state:{available,hidden,deleted,unpublished} workflow_state:{processed,pending_upload,processing,unattached}`],
  ['calendar_events', 'Calendar events, made by hand or from dated items', 80,
    `deleted_at?:ts user_id?:>users created_at:ts updated_at:ts location_address?:str start_at?:ts end_at?:ts context_code?:s255
     time_zone_edited?:s255 parent_calendar_event_id?:>calendar_events effective_context_code?:s255
     participants_per_appointment?:i32 comments?:str web_conference_id?:>web_conferences all_day?:bool all_day_date?:date
     migration_id?:s255 important_dates:bool location_name?:str description?:str title?:s255 context_id:i64
     context_type:{Course,User,Group,AppointmentGroup,CourseSection} workflow_state:{active,deleted,locked}`],
  ['canvadocs_annotation_contexts', 'Document viewer launches of annotated-document assignments', 30,
    `created_at:ts updated_at:ts attachment_id:>attachments submission_id:>submissions launch_id:str submission_attempt?:i32`],
  ['collaborations', 'Shared documents of a course or group', 20,
    `collaboration_type?:s255 document_id?:s255 user_id?:>users url?:s255 uuid?:s255 data?:json created_at:ts updated_at:ts
     description?:str title:s255 workflow_state:s255 deleted_at?:ts context_code?:s255 type?:s255 resource_link_lookup_uuid?:s255`],
  ['comment_bank_items', 'Comments teachers keep for reuse', 30,
    `user_id:>users created_at:ts updated_at:ts course_id:>courses comment:str workflow_state:${WF}`],
  ['communication_channels', 'Where users get notifications: email addresses, phones, devices', 120,
    `path:s255 path_type:{email,sms,push} pseudonym_id?:>pseudonyms bounce_count:i32 confirmation_code_expires_at?:ts
     confirmation_sent_count:i32 user_id:>users created_at:ts updated_at:ts position?:i32 workflow_state:{active,unconfirmed,retired}`],
  ['content_migrations', 'Course copies and imports', 30,
    `attachment_id?:>attachments user_id?:>users created_at:ts updated_at:ts overview_attachment_id?:>attachments
     exported_attachment_id?:>attachments source_course_id?:>courses migration_type?:s255 migration_settings?:json started_at?:ts
     finished_at?:ts progress?:f64 context_id:>courses context_type:{Course,Account,Group,User}
     workflow_state:{created,queued,exporting,imported,failed,pre_processed}`],
  ['content_participation_counts', 'Counts of unread submission feedback per student and course', 60,
    `user_id?:>users created_at:ts updated_at:ts context_id?:>courses context_type:{Course} content_type:{Submission} unread_count:i32`],
  ['content_participations', 'Whether a student has read feedback on a submission', 120,
    `user_id:>users content_id:>submissions content_type:{Submission} workflow_state:{read,unread}`],
  ['content_shares', 'Content sent from one user to another', 20,
    `name:s255 user_id:>users created_at:ts updated_at:ts content_export_id:i64 sender_id?:>users read_state:{read,unread}
     type:{SentContentShare,ReceivedContentShare}`],
  ['content_tags', 'Module items, outcome alignments and tool links', 150,
    `created_at:ts updated_at:ts context_id:>courses context_type:{Course,Account,Assignment,LearningOutcomeGroup} context_code?:s255
     comments?:str migration_id?:s255 context_module_id?:>context_modules learning_outcome_id?:>learning_outcomes mastery_score?:f64
     rubric_association_id?:i64 associated_asset_id?:>learning_outcome_groups
     associated_asset_type?:{LearningOutcomeGroup,Lti::ResourceLink} link_settings?:json new_tab?:bool position?:i32
     content_id?:i64 content_type?:{Assignment,Attachment,DiscussionTopic,WikiPage,ExternalUrl,ContextExternalTool,Quizzes::Quiz}
     url?:str title?:str tag_type:{default,context_module,learning_outcome,learning_outcome_association}
     workflow_state:{active,unpublished,deleted}`],
  ['context_external_tools', 'Installed LTI tools', 20,
    `developer_key_id?:>developer_keys created_at:ts updated_at:ts context_id?:>accounts context_type:{Account,Course}
     migration_id?:s255 consumer_key:str cloned_item_id?:i64 tool_id?:s255 not_selectable?:bool allow_membership_service_access:bool
     description?:str name:s255 domain?:s255 url?:s4096 unified_tool_id?:s255
     settings?:(text?:str visibility?:str course_navigation?:str use_1_3?:str)
     workflow_state:{anonymous,email_only,name_only,public,deleted}`],
  ['context_module_progressions', 'A student\'s progress through a module', 200,
    `user_id?:>users created_at:ts updated_at:ts requirements_met?:json collapsed?:bool current_position?:i32 completed_at?:ts
     current?:bool evaluated_at?:ts incomplete_requirements?:json context_module_id?:>context_modules lock_version:i32
     workflow_state:{locked,unlocked,started,completed}`],
  ['context_modules', 'Modules: course content in the order students go through it', 60,
    `name?:str deleted_at?:ts created_at:ts updated_at:ts unlock_at?:ts context_id:>courses context_type:{Course} migration_id?:s255
     prerequisites?:json completion_requirements?:json require_sequential_progress?:bool completion_events?:str
     requirement_count?:i32 position?:i32 workflow_state:{active,unpublished,deleted}`],
  ['conversation_message_participants', 'Who received each inbox message', 150,
    `deleted_at?:ts user_id?:>users conversation_message_id?:>conversation_messages
     conversation_participant_id?:>conversation_participants tags?:str workflow_state:${WF}`],
  ['conversation_messages', 'Inbox messages', 100,
    `created_at?:ts context_id?:>accounts context_type?:{Account,Course,Group} conversation_id?:>conversations author_id?:>users
     generated?:bool forwarded_message_ids?:str media_comment_id?:s255 media_comment_type?:{audio/mpeg,audio/webm,video/webm,video/quicktime}
     asset_id?:>submissions asset_type?:{Submission} attachment_ids?:str has_attachments?:bool has_media_objects?:bool body?:str`],
  ['conversation_participants', 'The people in an inbox conversation', 100,
    `user_id:>users conversation_id:>conversations updated_at?:ts has_attachments:bool has_media_objects:bool last_message_at?:ts
     subscribed:bool message_count:i32 label?:s255 tags?:str workflow_state:{read,unread,archived}`],
  ['conversations', 'Inbox conversation threads', 50,
    `updated_at?:ts context_id?:>courses context_type?:{Course,Group,Account} has_attachments:bool has_media_objects:bool
     subject?:s255 tags?:str`],
  ['course_account_associations', 'Every account above a course in the account tree', 80,
    `course_id:>courses created_at:ts updated_at:ts account_id:>accounts course_section_id?:>course_sections depth:i32`],
  ['course_sections', 'Sections of courses', 80,
    `name:s255 course_id:>courses integration_id?:s255 created_at:ts updated_at:ts sis_batch_id?:i64 start_at?:ts end_at?:ts
     sis_source_id?:s255 default_section?:bool accepting_enrollments?:bool restrict_enrollments_to_section_dates?:bool
     nonxlist_course_id?:>courses enrollment_term_id?:>enrollment_terms workflow_state:${WF}`],
  ['custom_gradebook_column_data', 'Per-student values of custom gradebook columns', 80,
    `content:s255 user_id:>users custom_gradebook_column_id:>custom_gradebook_columns`],
  ['custom_gradebook_columns', 'Custom gradebook columns of courses', 20,
    `created_at:ts updated_at:ts course_id:>courses teacher_notes:bool position:i32 read_only:bool title:s255
     workflow_state:{active,hidden,deleted}`],
  ['developer_key_account_bindings', 'Whether a developer key is on or off for an account', 20,
    `account_id:>accounts created_at:ts updated_at:ts developer_key_id:>developer_keys workflow_state:{on,off,allow}`],
  ['developer_keys', 'Credentials for API access, LTI 1.3 keys included', 20,
    `name?:s255 user_id?:>users created_at:ts updated_at:ts scopes?:json account_id?:>accounts redirect_uri?:s255 icon_url?:s255
     redirect_uris:[s255] notes?:str access_token_count:i32 require_scopes:bool test_cluster_only:bool public_jwk?:str
     allow_includes:bool is_lti_key:bool client_credentials_audience?:str email?:s255 user_name?:s255
     workflow_state:{active,inactive,deleted}`],
  ['discussion_entries', 'Replies in discussions', 200,
    `message?:str attachment_id?:>attachments deleted_at?:ts user_id?:>users created_at:ts updated_at:ts migration_id?:s255
     discussion_topic_id?:>discussion_topics parent_id?:>discussion_entries editor_id?:>users root_entry_id?:>discussion_entries
     depth?:i32 rating_count?:i32 rating_sum?:i32 workflow_state:${WF}`],
  ['discussion_entry_participants', 'Who has read or rated each reply', 200,
    `user_id:>users forced_read_state?:bool discussion_entry_id:>discussion_entries rating?:i32 workflow_state:{read,unread}`],
  ['discussion_topic_participants', 'Users who posted in a discussion, with their unread counts', 120,
    `user_id:>users subscribed?:bool unread_entry_count:i32 discussion_topic_id:>discussion_topics workflow_state:{read,unread}`],
  ['discussion_topics', 'Discussions and announcements', 60,
    `message?:str attachment_id?:>attachments deleted_at?:ts user_id?:>users created_at:ts updated_at:ts lock_at?:ts
     context_id:>courses context_type:{Course,Group} locked:bool assignment_id?:>assignments migration_id?:s255
     group_category_id?:>group_categories cloned_item_id?:i64 last_reply_at?:ts delayed_post_at?:ts posted_at?:ts
     root_topic_id?:>discussion_topics old_assignment_id?:>assignments subtopics_refreshed_at?:ts external_feed_id?:i64
     podcast_enabled:bool podcast_has_student_posts:bool require_initial_post:bool editor_id?:>users pinned:bool allow_rating:bool
     only_graders_can_rate:bool sort_by_rating:bool todo_date?:ts is_section_specific:bool position?:i32 title?:s255
     discussion_type?:{side_comment,threaded,not_threaded} type?:{Announcement}
     workflow_state:{active,post_delayed,unpublished,locked,deleted}`],
  ['enrollment_dates_overrides', 'Term dates overridden for some enrollment types', 10,
    `created_at:ts updated_at:ts context_id:>accounts context_type:{Account} start_at?:ts end_at?:ts
     enrollment_term_id?:>enrollment_terms enrollment_type:{DesignerEnrollment,StudentEnrollment,TaEnrollment,TeacherEnrollment}`],
  ['enrollment_states', 'The computed state of each enrollment; keyed by the enrollment', 200,
    `*enrollment_id:>enrollments updated_at?:ts state_is_current:bool state_started_at?:ts state_valid_until?:ts restricted_access:bool
     access_is_current:bool state:{active,invited,creation_pending,current_and_invited,current_and_future,current_and_concluded,pending_active,pending_invited,completed,inactive,deleted,rejected}`],
  ['enrollment_terms', 'Terms and semesters', 8,
    `name?:s255 integration_id?:s255 created_at:ts updated_at:ts sis_batch_id?:i64 start_at?:ts end_at?:ts sis_source_id?:s255
     term_code?:s255 workflow_state:${WF}`],
  ['favorites', 'Courses and groups users marked as favourites', 60,
    `user_id?:>users created_at:ts updated_at:ts context_id?:>courses context_type:{Course,Group}`],
  ['folders', 'Folders of files', 60,
    `name?:s255 full_name?:str deleted_at?:ts created_at:ts updated_at:ts workflow_state:{visible,hidden,deleted} unlock_at?:ts
     lock_at?:ts locked?:bool cloned_item_id?:i64 submission_context_code?:s255 parent_folder_id?:>folders unique_type?:{media}
     context_id:>courses context_type:{Course,User,Group} position?:i32`],
  ['grading_period_groups', 'Sets of grading periods', 10,
    `account_id?:>accounts created_at:ts updated_at:ts course_id?:>courses weighted?:bool display_totals_for_all_grading_periods:bool
     title?:s255 workflow_state:${WF}`],
  ['grading_periods', 'Grading periods that split a gradebook', 20,
    `created_at:ts updated_at:ts start_date:ts end_date:ts close_date?:ts title?:s255 weight?:f64
     grading_period_group_id:>grading_period_groups workflow_state:${WF}`],
  ['grading_standards', 'Grading schemes of courses and accounts', 10,
    `version?:i32 context_code?:s255 user_id?:>users created_at:ts updated_at:ts context_id:>courses context_type:{Account,Course}
     migration_id?:s255 title?:s255 data?:json workflow_state:${WF}`],
  ['group_categories', 'Group sets', 20,
    `name?:s255 deleted_at?:ts created_at?:ts updated_at?:ts sis_batch_id?:i64 context_id?:>courses context_type?:{Account,Course}
     sis_source_id?:str role?:{communities,student_organized,imported} self_signup?:s255 group_limit?:i32 auto_leader?:s255
     non_collaborative?:bool`],
  ['group_memberships', 'Who is in which group', 120,
    `user_id:>users created_at:ts updated_at:ts sis_batch_id?:i64 group_id:>groups moderator?:bool uuid:s255
     workflow_state:{accepted,invited,requested,rejected,deleted}`],
  ['groups', 'Groups of students in a course or account', 40,
    `name?:s255 deleted_at?:ts storage_quota?:i64 lti_context_id?:s255 created_at:ts updated_at:ts account_id:>accounts
     sis_batch_id?:i64 context_id:>courses context_type:{Course,Account} migration_id?:s255 sis_source_id?:s255 is_public?:bool
     wiki_id?:>wikis max_membership?:i32 join_level?:s255 avatar_attachment_id?:>attachments leader_id?:>users description?:str
     uuid:s255 non_collaborative?:bool group_category_id?:>group_categories workflow_state:{available,deleted}`],
  ['late_policies', 'Late and missing submission policies of courses', 20,
    `course_id:>courses created_at:ts updated_at:ts missing_submission_deduction_enabled:bool missing_submission_deduction:f64
     late_submission_deduction_enabled:bool late_submission_deduction:f64 late_submission_interval:s16
     late_submission_minimum_percent_enabled:bool late_submission_minimum_percent:f64`],
  ['learning_outcome_groups', 'Folders of learning outcomes', 30,
    `created_at:ts updated_at:ts context_id?:>accounts context_type?:{Account,Course,Department} migration_id?:s255
     learning_outcome_group_id?:>learning_outcome_groups root_learning_outcome_group_id?:>learning_outcome_groups vendor_guid?:s255
     outcome_import_id?:i64 source_outcome_group_id?:>learning_outcome_groups description?:str title:s255 workflow_state:${WF}`],
  ['learning_outcome_question_results', 'Outcome results of single quiz questions', 100,
    `created_at:ts updated_at:ts learning_outcome_id?:>learning_outcomes associated_asset_id?:>assessment_questions
     associated_asset_type?:{AssessmentQuestion} score?:f64 possible?:f64 mastery?:bool attempt?:i32 original_score?:f64
     original_possible?:f64 original_mastery?:bool assessed_at?:ts submitted_at?:ts percent?:f64 title?:str
     learning_outcome_result_id?:>learning_outcome_results`],
  ['learning_outcome_results', 'Students\' mastery scores on outcomes', 150,
    `user_id?:>users created_at:ts updated_at:ts context_id?:>courses context_type?:{Course} context_code?:s255
     learning_outcome_id?:>learning_outcomes score?:f64 possible?:f64 mastery?:bool attempt?:i32 original_score?:f64
     original_possible?:f64 original_mastery?:bool assessed_at?:ts submitted_at?:ts content_tag_id?:>content_tags user_uuid?:s255
     hide_points:bool hidden:bool percent?:f64 title?:s255
     artifact_type?:{Submission,RubricAssessment,Quizzes::QuizSubmission,LiveAssessments::Submission} artifact_id?:i64
     associated_asset_type?:{Assignment,AssessmentQuestion,Quizzes::Quiz,LiveAssessments::Assessment} associated_asset_id?:i64
     association_type?:{Assignment,Quizzes::Quiz,RubricAssociation} association_id?:i64 workflow_state:${WF}`],
  ['learning_outcomes', 'Learning outcomes: what students should know or be able to do', 40,
    `display_name?:s255 context_code?:s255 created_at:ts updated_at:ts context_id?:>accounts context_type?:{Account,Course}
     migration_id?:s255 vendor_guid?:s255 outcome_import_id?:i64 calculation_int?:i32 short_description:s255 description?:str
     data?:json calculation_method?:{decaying_average,n_mastery,latest,highest,average,weighted_average,standard_decaying_average}
     workflow_state:${WF}`],
  ['lti_line_items', 'Line items of the LTI assignment and grade service', 30,
    `created_at:ts updated_at:ts assignment_id:>assignments client_id:i64 coupled:bool score_maximum:f64 resource_id?:str
     lti_resource_link_id?:>lti_resource_links label:str extensions:json tag?:str workflow_state:${WF}`],
  ['lti_resource_links', 'Links from LTI 1.3 tools to assignments and other resources', 30,
    `created_at:ts updated_at:ts context_external_tool_id:>context_external_tools custom?:str resource_link_uuid:uuid lookup_uuid:uuid
     context_id?:>assignments context_type?:{Assignment,Course} workflow_state:${WF}`],
  ['lti_results', 'Results of the LTI assignment and grade service', 60,
    `extensions:str comment?:str submission_id?:>submissions user_id:>users created_at:ts updated_at:ts result_score?:f64
     result_maximum?:f64 activity_progress?:str grading_progress?:str lti_line_item_id:>lti_line_items workflow_state:${WF}`],
  ['master_courses_child_content_tags', 'Blueprint content imported into associated courses, and what changed there', 40,
    `migration_id?:str downstream_changes?:json child_subscription_id:>master_courses_child_subscriptions content_id?:i64
     content_type?:{Assignment,Attachment,ContextModule,DiscussionTopic,Quizzes::Quiz,WikiPage}`],
  ['master_courses_child_subscriptions', 'Which courses follow which blueprint course', 20,
    `created_at:ts updated_at:ts use_selective_copy:bool child_course_id:>courses master_template_id:>master_courses_master_templates
     workflow_state:${WF}`],
  ['master_courses_master_content_tags', 'Blueprint content and whether it is locked', 40,
    `migration_id?:str restrictions?:json use_default_restrictions:bool master_template_id:>master_courses_master_templates
     content_id?:i64 content_type?:{Assignment,Attachment,ContextModule,DiscussionTopic,Quizzes::Quiz,WikiPage,MediaTrack}`],
  ['master_courses_master_migrations', 'Blueprint sync events', 20,
    `comment?:str user_id?:>users created_at:ts updated_at:ts migration_settings?:json export_results?:json exports_started_at?:ts
     imports_queued_at?:ts imports_completed_at?:ts send_notification:bool master_template_id:>master_courses_master_templates
     workflow_state:{created,queued,exporting,imports_queued,completed,exports_failed,imports_failed}`],
  ['master_courses_master_templates', 'Blueprint courses', 8,
    `course_id:>courses created_at:ts updated_at:ts full_course:bool default_restrictions?:json use_default_restrictions_by_type:bool
     default_restrictions_by_type?:json workflow_state:${WF}`],
  ['master_courses_migration_results', 'What a blueprint sync did in each associated course', 40,
    `content_migration_id:>content_migrations results?:json master_migration_id:>master_courses_master_migrations
     child_subscription_id:>master_courses_child_subscriptions import_type:{full,selective} state:{queued,completed,failed}`],
  ['originality_reports', 'Plagiarism scores of submissions from LTI tools', 30,
    `error_message?:str attachment_id?:>attachments submission_id:>submissions created_at:ts updated_at:ts originality_score?:f64
     originality_report_url?:str originality_report_lti_url?:str link_id?:str submission_time?:ts workflow_state:{pending,scored,error}`],
  ['outcome_proficiencies', 'Mastery scales of accounts and courses', 10,
    `created_at:ts updated_at:ts context_id:>accounts context_type:{Account,Course} workflow_state:${WF}`],
  ['outcome_proficiency_ratings', 'The tiers of a mastery scale', 40,
    `created_at:ts updated_at:ts mastery:bool points:f64 outcome_proficiency_id:>outcome_proficiencies color:str description:s255
     workflow_state:${WF}`],
  ['post_policies', 'Whether grades are posted to students by hand, per course or assignment', 60,
    `course_id?:>courses created_at:ts updated_at:ts assignment_id?:>assignments post_manually:bool`],
  ['pseudonyms', 'Logins of users, one per account they sign in to', 400,
    `deleted_at?:ts integration_id?:s255 user_id:>users created_at:ts updated_at:ts account_id:>accounts sis_batch_id?:i64
     unique_id:s255 login_count:i32 failed_login_count:i32 last_request_at?:ts last_login_at?:ts current_login_at?:ts
     last_login_ip?:s255 current_login_ip?:s255 sis_user_id?:s255 authentication_provider_id?:i64 position?:i32
     workflow_state:{active,suspended,deleted}`],
  ['quiz_groups', 'Groups of questions a quiz picks from', 40,
    `name?:s255 created_at:ts updated_at:ts assessment_question_bank_id?:>assessment_question_banks quiz_id:>quizzes
     migration_id?:s255 pick_count?:i32 question_points?:f64 position?:i32`],
  ['quiz_questions', 'Questions of quizzes', 200,
    `created_at?:ts updated_at?:ts quiz_id?:>quizzes migration_id?:s255 quiz_group_id?:>quiz_groups
     assessment_question_id?:>assessment_questions assessment_question_version?:i32 position?:i32
     question_data?:(name?:str question_type?:str question_text?:str points_possible?:f64 correct_comments?:str
     incorrect_comments?:str neutral_comments?:str regrade_option?:{available,unavailable,no_regrade,full_credit})
     workflow_state:${WF}`],
  ['quiz_submissions', 'The latest attempt of each student at each quiz', 200,
    `submission_id?:>submissions user_id?:>users created_at:ts updated_at:ts quiz_id:>quizzes quiz_version?:i32 started_at?:ts
     finished_at?:ts end_at?:ts score?:f64 attempt?:i32 submission_data?:json kept_score?:f64 fudge_points:f64
     quiz_points_possible?:f64 extra_attempts?:i32 temporary_user_code?:s255 extra_time?:i32 manually_scored?:bool
     manually_unlocked?:bool was_preview?:bool score_before_regrade?:f64 has_seen_results?:bool
     workflow_state:{untaken,pending_review,complete,settings_only,preview}`],
  ['role_overrides', 'Permissions a role has beyond or below its defaults', 60,
    `permission?:s255 created_at?:ts updated_at?:ts role_id:>roles context_id:>accounts context_type:{Account} locked:bool
     enabled:bool applies_to_self:bool applies_to_descendants:bool`],
  ['roles', 'Roles and the base role each builds on', 20,
    `name:s255 deleted_at?:ts created_at:ts updated_at:ts account_id?:>accounts
     base_role_type:{AccountMembership,StudentEnrollment,TeacherEnrollment,TaEnrollment,ObserverEnrollment,DesignerEnrollment}
     workflow_state:{active,inactive,built_in,deleted}`],
  ['rubric_assessments', 'What graders entered in a rubric', 100,
    `user_id?:>users created_at:ts updated_at:ts rubric_association_id?:>rubric_associations artifact_id:>submissions
     artifact_type:{Submission,Assignment,ModeratedGrading::ProvisionalGrade} hide_points:bool score?:f64 rubric_id:>rubrics
     assessor_id?:>users artifact_attempt?:i32 data?:json assessment_type:{grading,peer_review,provisional_grade,self_assessment}`],
  ['rubric_associations', 'Which rubric grades which assignment', 40,
    `purpose:s255 created_at:ts updated_at:ts context_id:>courses context_type:{Course,Account} hide_points:bool rubric_id:>rubrics
     use_for_grading?:bool summary_data?:json hide_score_total?:bool bookmarked:bool hide_outcome_results:bool title?:s255
     association_id:i64 association_type:{Assignment,Course,Account} workflow_state:${WF}`],
  ['rubrics', 'Grading criteria', 30,
    `user_id?:>users created_at:ts updated_at:ts points_possible?:f64 context_id:>courses context_type:{Course,Account}
     migration_id?:s255 hide_score_total?:bool association_count:i32 free_form_criterion_comments?:bool title?:s255 data?:json
     workflow_state:{active,archived,deleted}`],
  ['score_statistics', 'Score statistics of assignments', 60,
    `created_at:ts updated_at:ts assignment_id:>assignments mean:f64 count:i32 minimum:f64 maximum:f64`],
  ['scores', 'Course and assignment group grades of enrollments', 300,
    `created_at?:ts updated_at?:ts assignment_group_id?:>assignment_groups enrollment_id:>enrollments
     grading_period_id?:>grading_periods current_score?:f64 final_score?:f64 course_score:bool unposted_current_score?:f64
     unposted_final_score?:f64 current_points?:f64 unposted_current_points?:f64 final_points?:f64 unposted_final_points?:f64
     override_score?:f64 workflow_state:${WF}`],
  ['submission_comments', 'Comments on submissions', 200,
    `comment?:str submission_id?:>submissions created_at:ts updated_at:ts context_id?:>courses context_type?:{Course}
     author_id?:>users media_comment_id?:s255 media_comment_type?:{audio/mpeg,audio/webm,video/webm,video/quicktime}
     attachment_ids?:str attempt?:i32 hidden:bool author_name?:s255 group_comment_id?:s255 assessment_request_id?:i64
     anonymous?:bool teacher_only_comment:bool provisional_grade_id?:i64 draft:bool edited_at?:ts workflow_state:${WF}`],
  ['submission_versions', 'Earlier versions of submissions', 200,
    `user_id?:>users context_id?:>courses context_type?:{Course} assignment_id?:>assignments version_id?:i64`],
  ['user_account_associations', 'How close each user is to each account', 400,
    `user_id:>users created_at:ts updated_at:ts account_id:>accounts depth?:i32`],
  ['web_conference_participants', 'Users invited to web conferences', 60,
    `web_conference_id?:>web_conferences user_id?:>users created_at:ts updated_at:ts participation_type?:{invitee,attendee}`],
  ['web_conferences', 'Web conferences', 20,
    `user_id?:>users created_at:ts updated_at:ts start_at?:ts end_at?:ts context_code?:s255 started_at?:ts user_ids?:s255
     ended_at?:ts recording_ready?:bool conference_key?:s255 description?:str duration?:f64 settings?:json title:s255 uuid?:s255
     conference_type:{AdobeConnect,BigBlueButton,CiscoWebex} context_id:>courses context_type:{Course,Group,Account}`],
  ['wiki_pages', 'Pages of courses and groups', 80,
    `user_id?:>users created_at:ts updated_at:ts context_id:>courses context_type:{Course,Group} assignment_id?:>assignments
     migration_id?:s255 wiki_id:>wikis old_assignment_id?:>assignments todo_date?:ts editing_roles?:s255 revised_at?:ts body?:str
     url?:str title?:s255 protected_editing:bool could_be_locked?:bool workflow_state:{active,post_delayed,unpublished,deleted}`],
  ['wikis', 'The wiki of each course or group', 60,
    `created_at:ts updated_at:ts front_page_url?:str has_no_front_page?:bool title?:s255`],
];

export const CANVAS_SERVICE_TABLES: readonly CompactTable[] = ROWS.map(([name, about, rows, columns]) => ({ name, about, rows, columns }));
