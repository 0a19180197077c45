/** The environment `tooltrail status` reads to reach the collector, named once for its help text and its run. */
export const COLLECTOR_URL_ENV = 'TOOLTRAIL_COLLECTOR_URL';
/** A sender's collector token: the collector then answers for that tenant only. */
export const COLLECTOR_TOKEN_ENV = 'TOOLTRAIL_COLLECTOR_TOKEN';
