// A credentials helper for tests: returns the test's credential data (with the credential type's defaults, as
// n8n does) and authenticates requests with the real credential class, resolving an IAuthenticateGeneric's
// `={{$credentials.…}}` expressions with n8n's own expression engine, the way n8n's CredentialsHelper does.
import type {
  ICredentialDataDecryptedObject,
  ICredentials,
  ICredentialType,
  IHttpRequestOptions,
  INode,
  INodeCredentialsDetails,
  INodeParameters,
  INodeProperties,
  IRequestOptionsSimplified,
  IWorkflowExecuteAdditionalData,
  Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers } from 'n8n-workflow';
import { DevDataApi } from '../../../credentials/DevDataApi.credentials';
import { DevDataAppApi } from '../../../credentials/DevDataAppApi.credentials';

export const CREDENTIAL_TYPES: Record<string, ICredentialType> = {
  devDataApi: new DevDataApi(),
  devDataAppApi: new DevDataAppApi(),
};

export type TestCredentials = Record<string, ICredentialDataDecryptedObject>;

export class CredentialsHelper extends ICredentialsHelper {
  /** Credential data by credential type, as the test set it. */
  constructor(private readonly credentials: TestCredentials) {
    super();
  }

  private type(name: string): ICredentialType {
    const type = CREDENTIAL_TYPES[name];
    if (!type) throw new Error(`Unknown credential type "${name}"`);
    return type;
  }

  getParentTypes(): string[] {
    return [];
  }

  isCredentialUsableByNode(): boolean {
    return true;
  }

  getCredentialsProperties(type: string): INodeProperties[] {
    return this.type(type).properties;
  }

  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    typeName: string,
    requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
    workflow?: Workflow,
    node?: INode,
  ): Promise<IHttpRequestOptions> {
    const { authenticate } = this.type(typeName);
    if (typeof authenticate === 'function') {
      return await authenticate(credentials, requestOptions as IHttpRequestOptions);
    }
    if (authenticate?.type === 'generic') {
      if (!workflow || !node) throw new Error('Generic authentication needs the workflow and node');
      const resolve = (value: string) =>
        value.startsWith('=')
          ? String(
              workflow.expression.getSimpleParameterValue(node, value, 'internal', {
                $credentials: credentials,
              }) ?? '',
            )
          : value;
      const options = requestOptions as unknown as Record<string, Record<string, string> | undefined>;
      for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
        const target = (options[outerKey] ??= {});
        for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
          target[resolve(key)] = resolve(value);
        }
      }
    }
    return requestOptions as IHttpRequestOptions;
  }

  async preAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
    return undefined;
  }

  async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
    return undefined;
  }

  async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
    throw new Error(`getCredentials(${nodeCredentials.name}, ${type}) is not used by the node tests`);
  }

  /** The test's data for this credential type, with the type's defaults filled in (as n8n applies them). */
  async getDecrypted(
    _additionalData: IWorkflowExecuteAdditionalData,
    nodeCredentials: INodeCredentialsDetails,
    type: string,
  ): Promise<ICredentialDataDecryptedObject> {
    const data = this.credentials[type];
    if (!data) throw new Error(`The test gave no data for credential "${nodeCredentials.name}" (${type})`);
    return NodeHelpers.getNodeParameters(
      this.type(type).properties,
      data as INodeParameters,
      true,
      false,
      null,
      null,
    ) as ICredentialDataDecryptedObject;
  }

  async updateCredentials(): Promise<void> {}

  async updateCredentialsOauthTokenData(): Promise<void> {}
}
