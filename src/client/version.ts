// The client's name and version as sent in User-Agent. Kept in step with package.json by a
// unit test, so nothing reads package.json from disk at run time.

export const CLIENT_NAME = 'data-query-explorer';
export const CLIENT_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `${CLIENT_NAME}/${CLIENT_VERSION}`;
