// What OpenAPI Generator's `typescript` generator hands repo-tools' templates
// (models, operations, imports), built from an OpenAPI document for the
// constructs Vigil's document uses: objects, arrays, maps, string enums,
// `allOf` of objects, `oneOf` and lists of types (unions), 3.1's `null`, and
// $refs to component schemas, parameters and responses; an object without
// properties is free-form (`any`), as OpenAPI Generator types it. Other
// constructs are refused by name, so they fail generation rather than type
// wrongly.

/** TypeScript's own global names, which a model may not take. */
const RESERVED_MODEL_NAMES = new Set(['Error', 'Date', 'Array', 'Object']);

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function pascalCase(text) {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(word => word[0].toUpperCase() + word.slice(1))
    .join('');
}

export function camelCase(text) {
  const pascal = pascalCase(text);
  return pascal[0].toLowerCase() + pascal.slice(1);
}

function modelName(name) {
  const pascal = pascalCase(name);
  return RESERVED_MODEL_NAMES.has(pascal) ? `Model${pascal}` : pascal;
}

function resolveRef(document, ref) {
  if (!ref.startsWith('#/')) {
    throw new Error(`Only local $refs are supported, not ${ref}`);
  }
  return ref
    .slice(2)
    .split('/')
    .reduce((node, key) => {
      const next = node?.[key];
      if (next === undefined) throw new Error(`Unresolved $ref ${ref}`);
      return next;
    }, document);
}

function literal(value) {
  return `'${String(value).replace(/'/g, "\\'")}'`;
}

/** Marks the first and last items as jmustache's `-first` and `-last` do. */
export function withPositions(items) {
  return items.map((item, index) => {
    const positioned =
      typeof item === 'object'
        ? { ...item }
        : { value: item, toString: () => String(item) };
    positioned['-first'] = index === 0;
    positioned['-last'] = index === items.length - 1;
    return positioned;
  });
}

/**
 * The models and operations of a document. Inline object schemas become
 * models named after where they sit (`SliceUptimesSlicesValue`,
 * `ListSystems200Response`), as OpenAPI Generator names them.
 */
export function buildCodegenModel(document) {
  const models = new Map();

  /** The TypeScript type of a schema; registers the models it needs. */
  function typeOf(schema, nameHint) {
    if (schema.$ref) {
      const ref = schema.$ref;
      if (!ref.startsWith('#/components/schemas/')) {
        throw new Error(`A schema $ref must name a component schema: ${ref}`);
      }
      const name = ref.split('/').pop();
      declareModel(name, resolveRef(document, ref));
      return { dataType: modelName(name), imports: [modelName(name)] };
    }
    const members = schema.oneOf ?? schema.anyOf;
    if (members) {
      const typed = members.map((member, index) =>
        typeOf(member, `${nameHint}OneOf${index || ''}`),
      );
      return {
        dataType: typed.map(t => t.dataType).join(' | '),
        imports: typed.flatMap(t => t.imports),
      };
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const nullable = types.includes('null');
    const type = types.filter(t => t !== 'null');
    if (type.length > 1) {
      const typed = type.map(t => typeOf({ ...schema, type: t }, nameHint));
      return {
        dataType: [...new Set(typed.map(t => t.dataType))].join(' | '),
        imports: typed.flatMap(t => t.imports),
      };
    }
    const wrap = result =>
      nullable ? { ...result, dataType: `${result.dataType} | null` } : result;
    if (schema.enum) {
      return wrap({
        dataType: schema.enum
          .map(value => (typeof value === 'string' ? literal(value) : value))
          .join(' | '),
        imports: [],
      });
    }
    switch (type[0]) {
      case 'string':
        return wrap({ dataType: 'string', imports: [] });
      case 'integer':
      case 'number':
        return wrap({ dataType: 'number', imports: [] });
      case 'boolean':
        return wrap({ dataType: 'boolean', imports: [] });
      case 'array': {
        const item = typeOf(schema.items ?? {}, `${nameHint}Inner`);
        return wrap({
          dataType: `Array<${item.dataType}>`,
          imports: item.imports,
        });
      }
      case undefined:
      case 'object': {
        if (schema.allOf || schema.properties) {
          const name = modelName(nameHint);
          declareModel(nameHint, schema);
          return wrap({ dataType: name, imports: [name] });
        }
        if (schema.additionalProperties) {
          const value =
            schema.additionalProperties === true
              ? { dataType: 'any', imports: [] }
              : typeOf(schema.additionalProperties, `${nameHint}Value`);
          return wrap({
            dataType: `{ [key: string]: ${value.dataType}; }`,
            imports: value.imports,
          });
        }
        return wrap({ dataType: 'any', imports: [] });
      }
      default:
        throw new Error(`Unsupported schema type ${type[0]} at ${nameHint}`);
    }
  }

  /**
   * The properties of an object schema, `allOf` merged: each with the name
   * of the schema that declares it, which names its inline models, so a
   * property of a referenced schema types as that schema's does.
   */
  function propertiesOf(schema, owner) {
    if (!schema.allOf) {
      return Object.entries(schema.properties ?? {}).map(
        ([baseName, property]) => ({
          baseName,
          property,
          owner,
          required: (schema.required ?? []).includes(baseName),
        }),
      );
    }
    return schema.allOf.flatMap(part =>
      part.$ref
        ? propertiesOf(
            resolveRef(document, part.$ref),
            part.$ref.split('/').pop(),
          )
        : propertiesOf(part, owner),
    );
  }

  function declareModel(name, schema) {
    const classname = modelName(name);
    if (models.has(classname)) return;
    // Claimed before the properties are typed, so recursion ends.
    models.set(classname, undefined);
    if (schema.enum) {
      models.set(classname, {
        classname,
        isEnum: true,
        description: schema.description,
        allowableValues: {
          enumVars: withPositions(
            schema.enum.map(value => ({ name: value, value: literal(value) })),
          ),
          values: withPositions(schema.enum),
        },
        tsImports: [],
      });
      return;
    }
    const imports = new Set();
    const vars = propertiesOf(schema, name).map(
      ({ baseName, property, owner, required }) => {
        const { dataType, imports: needed } = typeOf(
          property,
          `${owner}${pascalCase(baseName)}`,
        );
        needed.forEach(i => imports.add(i));
        return {
          baseName,
          name: baseName,
          dataType,
          required,
          description: property.description,
        };
      },
    );
    imports.delete(classname);
    models.set(classname, {
      classname,
      description: schema.description,
      vars: withPositions(vars),
      tsImports: [...imports]
        .sort()
        .map(i => ({ classname: i, filename: `./${i}` })),
    });
  }

  for (const [name, schema] of Object.entries(
    document.components?.schemas ?? {},
  )) {
    declareModel(name, schema);
  }

  const operations = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operations.push(
        buildOperation(path, method, item, operation, document, typeOf),
      );
    }
  }
  operations.sort((a, b) => a.nickname.localeCompare(b.nickname));

  const importsOf = flavour =>
    [...new Set(operations.flatMap(o => o.imports[flavour]))]
      .sort()
      .map(i => ({ classname: i, filename: `../models/${i}` }));
  return {
    appName: document.info.title,
    models: [...models.values()]
      .sort((a, b) => a.classname.localeCompare(b.classname))
      .map(model => ({ model, importPath: `./${model.classname}` })),
    operations,
    imports: { server: importsOf('server'), client: importsOf('client') },
  };
}

function buildOperation(path, method, item, operation, document, typeOf) {
  const { operationId } = operation;
  if (!operationId) {
    throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
  }
  const imports = [];
  const parameters = [
    ...(item.parameters ?? []),
    ...(operation.parameters ?? []),
  ]
    .map(p => (p.$ref ? resolveRef(document, p.$ref) : p))
    .map(p => {
      const { dataType, imports: needed } = typeOf(
        p.schema ?? {},
        `${operationId}${pascalCase(p.name)}Parameter`,
      );
      imports.push(...needed);
      return {
        in: p.in,
        baseName: p.name,
        paramName: camelCase(p.name),
        dataType,
        description: p.description,
        required: Boolean(p.required),
        isArray: dataType.startsWith('Array<'),
        isExplode: p.explode ?? p.style === undefined,
      };
    });
  const pathParams = parameters.filter(p => p.in === 'path');
  const queryParams = parameters.filter(p => p.in === 'query');
  const headerParams = parameters.filter(p => p.in === 'header');

  let bodyParam;
  const body = operation.requestBody;
  if (body) {
    const schema = (body.$ref ? resolveRef(document, body.$ref) : body)
      .content?.['application/json']?.schema;
    if (!schema) {
      throw new Error(`${operationId}'s request body is not application/json`);
    }
    const { dataType, imports: needed } = typeOf(
      schema,
      `${operationId}Request`,
    );
    imports.push(...needed);
    bodyParam = { paramName: 'body', dataType, required: true };
  }

  // The client names only its request and the success answer.
  const requestImports = [...imports];
  const responses = Object.entries(operation.responses ?? {}).map(
    ([status, response]) => {
      const resolved = response.$ref
        ? resolveRef(document, response.$ref)
        : response;
      // An answer in several media types is any of their bodies.
      const typed = Object.values(resolved.content ?? {})
        .filter(media => media.schema)
        .map(media => typeOf(media.schema, `${operationId}${status}Response`));
      if (typed.length === 0) return { code: status };
      const needed = typed.flatMap(t => t.imports);
      imports.push(...needed);
      return {
        code: status,
        dataType: [...new Set(typed.map(t => t.dataType))].join(' | '),
        imports: needed,
      };
    },
  );
  const success = responses.find(r => /^2/.test(r.code));

  return {
    nickname: camelCase(operationId),
    operationId,
    path,
    httpMethod: method.toUpperCase(),
    notes: operation.description,
    summary: operation.summary,
    pathParams: withPositions(pathParams),
    queryParams: withPositions(queryParams),
    headerParams: withPositions(headerParams),
    hasPathParams: pathParams.length > 0,
    hasQueryParams: queryParams.length > 0,
    hasHeaderParams: headerParams.length > 0,
    hasBodyParam: Boolean(bodyParam),
    bodyParam,
    allParams: withPositions([
      ...pathParams,
      ...queryParams,
      ...headerParams,
      ...(bodyParam ? [bodyParam] : []),
    ]),
    responses: withPositions(responses),
    returnType: success?.dataType,
    imports: {
      server: imports,
      client: [...requestImports, ...(success?.imports ?? [])],
    },
  };
}
