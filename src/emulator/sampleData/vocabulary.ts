// Word lists the sample tables draw from.

export const FIRST_NAMES = [
  'Ada', 'Bruno', 'Chiara', 'Dmitri', 'Elif', 'Farah', 'Gustav', 'Hana', 'Ines', 'Jonas', 'Kemal', 'Lina',
  'Mateo', 'Nadia', 'Oskar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tomoko', 'Uma', 'Viktor', 'Wen', 'Yusuf', 'Zofia',
] as const;

export const LAST_NAMES = [
  'Abara', 'Berg', 'Castillo', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Haddad', 'Ito', 'Jensen', 'Kowalski',
  'Larsen', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Rossi', 'Silva', 'Tanaka', 'Umarov', 'Varga', 'Weber',
] as const;

export const SUBJECTS = [
  'Algebra', 'Biology', 'Chemistry', 'Data Ethics', 'Economics', 'French', 'Geometry', 'History', 'Literature',
  'Macroeconomics', 'Music Theory', 'Philosophy', 'Physics', 'Psychology', 'Statistics', 'Writing',
] as const;

export const LEVELS = ['Introduction to', 'Foundations of', 'Advanced', 'Topics in', 'Seminar in'] as const;

export const TERMS = ['Fall 2025', 'Spring 2026', 'Summer 2026', 'Fall 2026'] as const;

export const TIME_ZONES = ['Europe/Berlin', 'America/Denver', 'Asia/Tokyo', 'Australia/Sydney', 'UTC'] as const;

export const LOCALES = ['en', 'de', 'es', 'fr', 'ja', 'pt-BR'] as const;

export const ASSIGNMENT_WORDS = ['Essay', 'Lab Report', 'Problem Set', 'Reflection', 'Project', 'Reading Quiz'] as const;

export const URL_PATHS = [
  '/courses/{c}', '/courses/{c}/assignments', '/courses/{c}/quizzes/{q}', '/courses/{c}/modules',
  '/api/v1/courses/{c}/enrollments', '/profile', '/calendar', '/conversations', '/courses/{c}/grades',
] as const;

export const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/132.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36',
  'CanvasStudent/7.12 (iOS 18.1)',
] as const;
