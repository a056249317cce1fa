import type { FeishuDouble } from './feishu-double.js';
import type { SlackDouble } from './slack-double.js';
import type { TelegramDouble } from './telegram-double.js';

/** The service's environment for all three platforms on their doubles, each in webhook (HTTP Events API) mode. */
export function allPlatformsEnv(doubles: { telegram: TelegramDouble; slack: SlackDouble; feishu: FeishuDouble }, webhookSecret: string): Record<string, string> {
  const { telegram, slack, feishu } = doubles;
  return {
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    TELEGRAM_MODE: 'webhook',
    TELEGRAM_WEBHOOK_SECRET: webhookSecret,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_API_URL: slack.apiUrl,
    FEISHU_APP_ID: feishu.appId,
    FEISHU_APP_SECRET: feishu.appSecret,
    FEISHU_VERIFICATION_TOKEN: feishu.verificationToken,
    FEISHU_ENCRYPT_KEY: feishu.encryptKey,
    FEISHU_DOMAIN: feishu.domain,
    FEISHU_MODE: 'webhook',
  };
}
