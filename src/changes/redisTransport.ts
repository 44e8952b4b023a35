// Notices over Redis pub/sub (REDIS_URL), through graphql-yoga's Redis event target: the channel every
// multi-instance deployment of this service already has for its shared rate limits.
import type { Redis } from 'ioredis';
import { ioredis, redisEventTarget } from '../optionalModules.js';
import type { ChangeTransport, TransportHandlers } from './transport.js';

export class RedisTransport implements ChangeTransport {
  readonly name = 'redis' as const;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;

  constructor(url: string, channel: string) {
    this.channel = channel;
    const common = {
      connectTimeout: 2_000,
      // reconnect forever, at most every second: the channel comes back by itself
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    };
    const { Redis } = ioredis();
    // publishing fails at once while disconnected (the feed logs it; the receivers read the log at their next poll)
    this.publisher = new Redis(url, {
      ...common,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1_000,
      lazyConnect: true,
    });
    // the subscriber queues its SUBSCRIBE until connected and subscribes again after every reconnect
    this.subscriber = new Redis(url, { ...common, lazyConnect: true });
    // without listeners an 'error' event would crash the process; the connection events below report the state
    this.publisher.on('error', () => {});
    this.subscriber.on('error', () => {});
  }

  async start(handlers: TransportHandlers, timeoutMs: number): Promise<void> {
    // The event target receives (and dispatches) the channel's messages; send() publishes itself so that a
    // failed PUBLISH is reported to the feed. The target does not wait for SUBSCRIBE/UNSUBSCRIBE: their
    // failures (the connection dropped meanwhile; ioredis subscribes again after reconnecting) are caught here.
    const subscriber = this.subscriber;
    const subscribeClient = {
      on: (event: string, listener: (...args: unknown[]) => void) => subscriber.on(event, listener),
      subscribe: (...channels: string[]) => subscriber.subscribe(...channels).catch(() => 0),
      unsubscribe: (...channels: string[]) => subscriber.unsubscribe(...channels).catch(() => 0),
    } as unknown as Redis;
    const target = redisEventTarget().createRedisEventTarget<CustomEvent<string>>({
      publishClient: this.publisher,
      subscribeClient,
      serializer: { stringify: (v: unknown) => String(v), parse: (v: string) => v },
    });
    // up once SUBSCRIBE is confirmed after each (re)connection: from then on no message can be missed
    const subscribed = new Promise<void>((resolve) => {
      subscriber.on('ready', () => {
        subscriber.subscribe(this.channel).then(
          () => {
            handlers.onConnection(true);
            resolve();
          },
          () => {},
        );
      });
    });
    subscriber.on('close', () => handlers.onConnection(false));
    await Promise.allSettled([subscriber.connect(), this.publisher.connect()]);
    target.addEventListener(this.channel, (event) => handlers.onMessage(String(event.detail)));
    let timer: NodeJS.Timeout | undefined;
    const connected = await Promise.race([
      subscribed.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!connected) handlers.onConnection(false);
  }

  async send(text: string): Promise<void> {
    await this.publisher.publish(this.channel, text);
  }

  async close(): Promise<void> {
    for (const client of [this.subscriber, this.publisher]) {
      try {
        if (client.status === 'ready') await client.quit();
        else client.disconnect();
      } catch {
        client.disconnect();
      }
    }
  }
}
